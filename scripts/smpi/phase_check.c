/* The cost model's point-to-point phase term (C10) against SimGrid alone: every rank posts all
   its messages of one phase at once (MPI_Irecv, MPI_Isend, MPI_Waitall), as each of the
   particles' four two-level phases does (pos_up, pos_down, sum_up, sum_down; before them the
   direct expand and subtree exchange). The messages come from a file of "SRC DST BYTES" lines (pair_plan.py
   --messages); one warm-up phase (the first message between two ranks costs more), then one
   barrier and 10 phases back to back (the barrier's skew amortised), their mean, the slowest
   rank's time. One summary line in the form scripts/smpi/run.sh expects
   ("build=..."). Run by allgather_check.sh --plan. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  FILE* f = argc > 1 ? fopen(argv[1], "r") : NULL;
  if (!f) {
    if (rank == 0) fprintf(stderr, "phase_check: cannot open the message file '%s'\n", argc > 1 ? argv[1] : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int cap = 64, n = 0;
  int* peer = malloc((size_t)cap * sizeof(int));
  long* bytes = malloc((size_t)cap * sizeof(long));
  int* is_send = malloc((size_t)cap * sizeof(int));
  long s = 0, d = 0, b = 0, total = 0;
  while (fscanf(f, "%ld %ld %ld", &s, &d, &b) == 3) {
    if (s == d || b <= 0 || (s != rank && d != rank)) continue;
    if (n == cap) {
      cap *= 2;
      peer = realloc(peer, (size_t)cap * sizeof(int));
      bytes = realloc(bytes, (size_t)cap * sizeof(long));
      is_send = realloc(is_send, (size_t)cap * sizeof(int));
    }
    peer[n] = (int)(s == rank ? d : s), bytes[n] = b, is_send[n] = s == rank, total += b, ++n;
  }
  fclose(f);
  char** buf = malloc((size_t)(n + 1) * sizeof(char*));
  for (int k = 0; k < n; ++k) buf[k] = calloc((size_t)bytes[k], 1);
  MPI_Request* req = malloc((size_t)(n + 1) * sizeof(MPI_Request));
  double mean = 0.0, slowest = 0.0;
  for (int it = 0; it < 11; ++it) {
    if (it == 1) {  /* after the warm-up: one barrier, then 10 phases back to back (its skew amortised) */
      MPI_Barrier(MPI_COMM_WORLD);
      mean = MPI_Wtime();
    }
    for (int k = 0; k < n; ++k)
      if (!is_send[k]) MPI_Irecv(buf[k], (int)bytes[k], MPI_CHAR, peer[k], 7, MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < n; ++k)
      if (is_send[k]) MPI_Isend(buf[k], (int)bytes[k], MPI_CHAR, peer[k], 7, MPI_COMM_WORLD, &req[k]);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  }
  mean = (MPI_Wtime() - mean) / 10;
  MPI_Reduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  long all = 0;
  MPI_Reduce(&total, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("build=smpi-phase ranks=%d message_file=%s bytes_counted_twice=%ld phase_seconds=%.6e\n", P, argv[1], all,
           slowest);
  for (int k = 0; k < n; ++k) free(buf[k]);
  free(buf), free(req), free(peer), free(bytes), free(is_send);
  MPI_Finalize();
  return 0;
}
