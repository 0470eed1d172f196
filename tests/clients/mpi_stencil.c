/* A small MPI code for the MPI tests: a 1-D Jacobi stencil over N cells
   per rank with halo exchange between neighbours, and one deliberately
   imbalanced rank (the last) that relaxes its cells SLOW_SWEEPS times per
   iteration where the others relax them once. The other ranks then wait
   for it in wait_halo, which polls politely (MPI_Testall, then a 1 ms
   sleep), so that waiting costs few instructions and the imbalance shows
   in relax, where it is made.

   usage: mpi_stencil [ITERATIONS [crash]]   (default 20)
   With `crash`, the last rank dies of SIGSEGV in the middle of the run
   (after its relax of iteration ITERATIONS / 2) while the others wait
   for its halo: a rank that crashes, and ranks that the launcher ends
   then (tests/tool/mpi.py). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 2000                  /* cells per rank */
#define SLOW_SWEEPS 4

static double cells[N + 2];     /* [0] and [N+1]: halo */
static double next[N + 2];

static void relax(int sweeps)
{
   for (int s = 0; s < sweeps; s++) {
      for (int i = 1; i <= N; i++)
         next[i] = 0.5 * cells[i] + 0.25 * (cells[i - 1] + cells[i + 1]);
      for (int i = 1; i <= N; i++)
         cells[i] = next[i];
   }
}

static void wait_halo(int n, MPI_Request *reqs)
{
   struct timespec pause = { 0, 1000000 };
   int done = 0;
   for (;;) {
      MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
      if (done)
         return;
      nanosleep(&pause, NULL);
   }
}

static void exchange_halo(int rank, int size)
{
   MPI_Request reqs[4];
   int n = 0;
   if (rank > 0) {
      MPI_Irecv(&cells[0], 1, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, &reqs[n++]);
      MPI_Isend(&cells[1], 1, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, &reqs[n++]);
   }
   if (rank < size - 1) {
      MPI_Irecv(&cells[N + 1], 1, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD, &reqs[n++]);
      MPI_Isend(&cells[N], 1, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD, &reqs[n++]);
   }
   wait_halo(n, reqs);
}

static double checksum(void)
{
   double sum = 0;
   for (int i = 1; i <= N; i++)
      sum += cells[i];
   return sum;
}

int main(int argc, char **argv)
{
   int rank, size;
   int iterations = argc > 1 ? atoi(argv[1]) : 20;
   int crash = argc > 2 && argv[2][0] == 'c';
   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   for (int i = 1; i <= N; i++)
      cells[i] = rank * N + i;
   int sweeps = rank == size - 1 ? SLOW_SWEEPS : 1;
   for (int it = 0; it < iterations; it++) {
      exchange_halo(rank, size);
      relax(sweeps);
      if (crash && rank == size - 1 && it == iterations / 2)
         *(volatile int *)0 = 0;
   }
   double local = checksum(), total = 0;
   MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
   if (rank == 0)
      printf("checksum %.6g\n", total);
   MPI_Finalize();
   return 0;
}
