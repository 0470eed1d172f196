/* The common shape of a threaded program (issue 42): two 1024x1024 grids
   of doubles, initialised, then two threads sweep their own half of the
   rows 8 times (a Jacobi step from one grid into the other, a barrier
   after each sweep) and are joined; main then sums a grid.

     sweep2 seq   main initialises both grids before creating the threads
     sweep2 own   each thread initialises its own half of the rows, then
                  waits at the barrier (the sweep reads the neighbour's
                  boundary row)

   Rows are 8 KiB, so the halves share no cache line; the sweeps read the
   neighbouring row across the boundary (true sharing of the boundary
   rows).  No false sharing either way: --sharing=yes should find the
   same few hundred lines (stacks, thread start-up, boundary rows) in
   both variants. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define N 1024
#define SWEEPS 8

static double grid[2][N][N] __attribute__((aligned(64)));
static pthread_barrier_t swept;
static int own_init;

static void init_rows(int from, int to)
{
   int i, j;

   for (i = from; i < to; i++)
      for (j = 0; j < N; j++)
         grid[0][i][j] = grid[1][i][j] = (double)((i * 7 + j * 3) % 11);
}

static void sweep_rows(const double (*src)[N], double (*dst)[N], int from, int to)
{
   int i, j;

   for (i = from; i < to; i++) {
      if (i == 0 || i == N - 1)
         continue;
      for (j = 1; j < N - 1; j++)
         dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j]
                             + src[i][j - 1] + src[i][j + 1]);
   }
}

static void *worker(void *arg)
{
   long half = (long)arg;
   int from = (int)half * (N / 2), to = from + N / 2, k;

   if (own_init) {
      init_rows(from, to);
      pthread_barrier_wait(&swept);      /* the neighbour's row is ready */
   }
   for (k = 0; k < SWEEPS; k++) {
      sweep_rows(grid[k & 1], grid[(k + 1) & 1], from, to);
      pthread_barrier_wait(&swept);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t[2];
   double sum = 0;
   long h;
   int i, j;

   own_init = argc > 1 && strcmp(argv[1], "own") == 0;
   if (!own_init)
      init_rows(0, N);
   pthread_barrier_init(&swept, NULL, 2);
   for (h = 0; h < 2; h++)
      pthread_create(&t[h], NULL, worker, (void *)h);
   for (h = 0; h < 2; h++)
      pthread_join(t[h], NULL);
   for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
         sum += grid[SWEEPS & 1][i][j];
   printf("%s init: sum %.1f\n", own_init ? "own" : "sequential", sum);
   return 0;
}
