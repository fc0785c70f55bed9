// GoogleTest main for liebench: initialises MPI (funneled), keeps output of ranks != 0
// quiet, and returns the MPI_MAX over ranks of RUN_ALL_TESTS() so that a failure on any
// rank fails the test.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
// On ranks != 0 only failures are printed (prefixed with the rank), so that a failure that
// happens on one rank only is still visible in the CTest log.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // (before InitGoogleTest, which removes its flags from argv): CTest's discovery lists the
  // tests under mpiexec -n P, and only rank 0's list may reach it
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::strstr(argv[i], "gtest_list_tests")) listing = true;
  // A batch run (tests/gtest_batch/run_batch.sh): every rank writes its own XML report,
  // LIEBENCH_GTEST_XML.rank<r>.xml, from which each case's CTest test reads its outcome (set
  // before InitGoogleTest, which configures the report from the flag).
  if (const char* prefix = std::getenv("LIEBENCH_GTEST_XML"); prefix && *prefix)
    GTEST_FLAG_SET(output, std::string("xml:") + prefix + ".rank" + std::to_string(rank) + ".xml");
  ::testing::InitGoogleTest(&argc, argv);
  if (rank != 0) {
    // Keep failures visible (they are printed by the failing rank), silence the rest.
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
    if (listing) std::freopen("/dev/null", "w", stdout);
  }
  int result = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&result, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return global;
}
