/* The 2D Jacobi solver of the bandwidth analysis' case study (thesis
 * 4.3.4): an N x N grid with fixed borders, each step replaces every
 * inner point by the mean of its four neighbours, reading one matrix and
 * writing the other (even steps in a[0], odd steps in a[1]). Threads
 * (pthreads) split the inner rows into slices of equal height.
 *
 *   jacobi naive|blocked [threads [N [steps [K]]]]
 *   (defaults: 1 thread, N = 400, 24 steps, K = 12)
 *
 * naive:   one sweep over the whole grid per step, a barrier between
 *          steps. Every step streams both matrices (2 x 8 N^2 bytes) once
 *          through the caches: with matrices larger than the last-level
 *          cache, every step reads and writes memory.
 * blocked: iteration blocking, K steps per pass over the grid. Within its
 *          slice a thread runs a wavefront: at row position i it computes
 *          step 1 of row i, step 2 of row i-1, ..., step K of row i-K+1,
 *          so only about K+2 rows of each matrix are in use at a time and
 *          they stay in the cache for the K steps. Two matrices suffice:
 *          step k of row r overwrites step k-2 of row r, which steps k-1
 *          of rows r-1..r+1 needed, and those were computed before (at
 *          this position or earlier ones). Beside another slice, the
 *          thread computes a shrinking trapezoid (step k stops k-1 rows
 *          before the slice's inner edge), so it never reads what the
 *          neighbour is writing; after a barrier, the thread below each
 *          inner edge fills the triangle left there, step by step (a row
 *          at distance d from the edge has reached step d, its neighbours
 *          at most d+1, so both matrices still hold what is needed).
 *          Needs slices of at least 2K rows, and steps a multiple of K.
 *
 * Both variants compute the same values in the same order per point, so
 * they print the same checksum (the sum of the final grid).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
   int n;                     /* grid side */
   int steps, block;          /* steps in all, steps per pass (blocked) */
   int threads;
   int blocked;
   double *grid[2];           /* even steps in grid[0], odd in grid[1] */
   pthread_barrier_t barrier;
} solver;

typedef struct {
   solver *s;
   int lo, hi;                /* this thread's inner rows [lo, hi) */
} slice;

#define AT(s, m, r, c) ((s)->grid[m][(size_t)(r) * (s)->n + (c)])

/* Step `step` of row r: from the other matrix's step - 1. */
static void row_step(solver *s, int r, int step)
{
   const double *up = &AT(s, (step - 1) & 1, r - 1, 0);
   const double *mid = &AT(s, (step - 1) & 1, r, 0);
   const double *down = &AT(s, (step - 1) & 1, r + 1, 0);
   double *out = &AT(s, step & 1, r, 0);
   for (int c = 1; c < s->n - 1; c++)
      out[c] = 0.25 * (up[c] + mid[c - 1] + down[c] + mid[c + 1]);
}

static void naive(slice *me)
{
   solver *s = me->s;
   for (int step = 1; step <= s->steps; step++) {
      for (int r = me->lo; r < me->hi; r++)
         row_step(s, r, step);
      pthread_barrier_wait(&s->barrier);
   }
}

/* The trapezoid of steps base+1 .. base+K within the slice, as a
 * wavefront: at an inner edge (not the grid's border), step k covers the
 * rows at least k-1 away from it. */
static void wavefront(slice *me, int base)
{
   solver *s = me->s;
   int K = s->block;
   int at_top = me->lo == 1, at_bottom = me->hi == s->n - 1;
   for (int i = me->lo; i < me->hi + K - 1; i++)
      for (int k = 1; k <= K; k++) {
         int r = i - k + 1;
         int first = at_top ? me->lo : me->lo + k - 1;
         int end = at_bottom ? me->hi : me->hi - k + 1;
         if (r >= first && r < end)
            row_step(s, r, base + k);
      }
}

/* The triangle the trapezoids left around the inner edge at row b:
 * step k of rows b-k+1 .. b+k-2, k ascending. */
static void fill_edge(solver *s, int b, int base)
{
   for (int k = 2; k <= s->block; k++)
      for (int r = b - k + 1; r <= b + k - 2; r++)
         row_step(s, r, base + k);
}

static void blocked(slice *me)
{
   solver *s = me->s;
   for (int base = 0; base < s->steps; base += s->block) {
      wavefront(me, base);
      pthread_barrier_wait(&s->barrier);
      if (me->lo != 1)
         fill_edge(s, me->lo, base);
      pthread_barrier_wait(&s->barrier);
   }
}

static void *work(void *arg)
{
   slice *me = arg;
   if (me->s->blocked)
      blocked(me);
   else
      naive(me);
   return NULL;
}

/* Borders: top row 1, left column 0.5, the rest 0, in both matrices. */
static void init(solver *s)
{
   for (int m = 0; m < 2; m++) {
      memset(s->grid[m], 0, sizeof(double) * s->n * s->n);
      for (int c = 0; c < s->n; c++)
         AT(s, m, 0, c) = 1.0;
      for (int r = 1; r < s->n; r++)
         AT(s, m, r, 0) = 0.5;
   }
}

static int usage(const char *why)
{
   fprintf(stderr, "jacobi: %s\nusage: jacobi naive|blocked [threads [N [steps [K]]]]\n",
           why);
   return 2;
}

static int parse(solver *s, int argc, char **argv)
{
   if (argc < 2 || argc > 6)
      return usage("wrong number of arguments");
   if (strcmp(argv[1], "naive") && strcmp(argv[1], "blocked"))
      return usage("variant must be naive or blocked");
   s->blocked = !strcmp(argv[1], "blocked");
   s->threads = argc > 2 ? atoi(argv[2]) : 1;
   s->n = argc > 3 ? atoi(argv[3]) : 400;
   s->steps = argc > 4 ? atoi(argv[4]) : 24;
   s->block = argc > 5 ? atoi(argv[5]) : 12;
   if (s->threads < 1 || s->n < 3 || s->steps < 1 || s->block < 1)
      return usage("threads, N, steps and K must be positive (N >= 3)");
   if (s->blocked && s->steps % s->block)
      return usage("steps must be a multiple of K");
   if (s->blocked && s->threads > 1 && (s->n - 2) / s->threads < 2 * s->block)
      return usage("slices of fewer than 2K rows");
   return 0;
}

int main(int argc, char **argv)
{
   solver s;
   if (parse(&s, argc, argv))
      return 2;
   for (int m = 0; m < 2; m++)
      s.grid[m] = malloc(sizeof(double) * s.n * s.n);
   slice *slices = calloc(s.threads, sizeof(slice));
   pthread_t *ids = calloc(s.threads, sizeof(pthread_t));
   if (!s.grid[0] || !s.grid[1] || !slices || !ids)
      return usage("out of memory");
   init(&s);
   pthread_barrier_init(&s.barrier, NULL, s.threads);
   int inner = s.n - 2;
   for (int t = 0; t < s.threads; t++) {
      slices[t].s = &s;
      slices[t].lo = 1 + (int)((long)inner * t / s.threads);
      slices[t].hi = 1 + (int)((long)inner * (t + 1) / s.threads);
   }
   for (int t = 1; t < s.threads; t++)
      pthread_create(&ids[t], NULL, work, &slices[t]);
   work(&slices[0]);
   for (int t = 1; t < s.threads; t++)
      pthread_join(ids[t], NULL);

   double sum = 0;
   for (int r = 0; r < s.n; r++)
      for (int c = 0; c < s.n; c++)
         sum += AT(&s, s.steps & 1, r, c);
   printf("jacobi %s: %d thread(s), N %d, %d steps: checksum %.17g\n",
          argv[1], s.threads, s.n, s.steps, sum);
   return 0;
}
