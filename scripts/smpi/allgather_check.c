/* The cost model's collective term (C3) against SimGrid alone: times MPI_Allgatherv of
   TOTAL_BYTES in equal shares (doubles), ITER times, and prints one summary line in the form
   scripts/smpi/run.sh expects ("build=..."). Built and run by scripts/smpi/allgather_check.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long total = argc > 1 ? atol(argv[1]) : 98304;
  const int iter = argc > 2 ? atoi(argv[2]) : 10;
  const int share = (int)(total / 8 / P);
  double* mine = calloc((size_t)share + 1, sizeof(double));
  double* all = calloc((size_t)share * (size_t)P + 1, sizeof(double));
  int* counts = malloc((size_t)P * sizeof(int));
  int* displs = malloc((size_t)P * sizeof(int));
  for (int r = 0; r < P; ++r) {
    counts[r] = share;
    displs[r] = r * share;
  }
  MPI_Allgatherv(mine, share, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);  // warm-up
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iter; ++i)
    MPI_Allgatherv(mine, share, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  const double t1 = MPI_Wtime();
  if (rank == 0)
    printf("build=smpi-allgather ranks=%d total_bytes=%ld iterations=%d allgatherv_seconds=%.6e\n", P,
           (long)share * 8 * P, iter, (t1 - t0) / iter);
  free(mine), free(all), free(counts), free(displs);
  MPI_Finalize();
  return 0;
}
