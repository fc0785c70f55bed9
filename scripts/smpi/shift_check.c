/* The cost model's message time (C2) against SimGrid alone: every rank sends BYTES to rank + D
   and receives from rank - D at once (MPI_Sendrecv); one warm-up exchange (the first message
   between two ranks costs more), then the mean of 10, the slowest rank's time. One summary
   line in the form scripts/smpi/run.sh expects ("build=..."). Run by allgather_check.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long bytes = argc > 1 ? atol(argv[1]) : 49152;
  const int d = argc > 2 ? atoi(argv[2]) : 1;
  char* out = calloc((size_t)bytes + 1, 1);
  char* in = calloc((size_t)bytes + 1, 1);
  double mean = 0.0, slowest = 0.0;
  for (int it = 0; it < 11; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Sendrecv(out, (int)bytes, MPI_CHAR, (rank + d) % P, 1, in, (int)bytes, MPI_CHAR, (rank - d + P) % P, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (it > 0) mean += (MPI_Wtime() - t0) / 10;
  }
  MPI_Reduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("build=smpi-shift ranks=%d bytes=%ld distance=%d sendrecv_seconds=%.6e\n", P, bytes, d, slowest);
  free(out), free(in);
  MPI_Finalize();
  return 0;
}
