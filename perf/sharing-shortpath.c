/*
** sharing-shortpath.c -- the false sharing model's short path without
** Valgrind: a two-thread Jacobi sweep's accesses (four loads of one grid,
** a store to the other, one block of five accesses per point, the two
** threads' rows in turns, a barrier per sweep) handed to sh_access_block
** as the tool hands a block's accesses, so that the model's cost per
** access can be counted exactly (instructions under Callgrind) or timed
** without the rest of the tool (perf/RESULTS-sharing.md, session 25).
**
**   gcc -O2 -g -fno-strict-aliasing -Icachesim -Ibackdate \
**       -o /tmp/shortpath perf/sharing-shortpath.c cachesim/sharing.c \
**       cachesim/sharing_pack.c tests/unit/port_native.c
**   /tmp/shortpath 12                           # CPU seconds of 12 sweeps
**   valgrind --tool=callgrind /tmp/shortpath 4  # instructions per function
**   /tmp/shortpath 12 2                         # the block handed over in
**                       calls of at most 2 accesses (the tool's calls on
**                       examples/jacobi.c carry 2.1 accesses on average)
**
** (Build two copies, one from each tree, to compare builds.)
*/
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include "sharing.h"

#define N 700                   /* as examples/jacobi.c naive 2 700 */

static double cpu_seconds(void)
{
   struct timespec t;

   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
   return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One sweep from grid src into dst, thread 1 the upper half's rows and
   thread 2 the lower half's, a row each in turn. */
static void sweep(sh_model *m, const sh_site *site, uint64_t src, uint64_t dst,
                  uint32_t per_call)
{
   uint64_t addr[5];
   uint32_t k;
   int i, t, j, row;

   for (i = 1; i < N / 2; i++)
      for (t = 0; t < 2; t++) {
         row = t ? i + N / 2 - 1 : i;
         for (j = 1; j < N - 1; j++) {
            addr[0] = src + ((uint64_t)(row - 1) * N + j) * 8;
            addr[1] = src + ((uint64_t)(row + 1) * N + j) * 8;
            addr[2] = src + ((uint64_t)row * N + j - 1) * 8;
            addr[3] = src + ((uint64_t)row * N + j + 1) * 8;
            addr[4] = dst + ((uint64_t)row * N + j) * 8;
            for (k = 0; k < 5; k += per_call)
               sh_access_block(m, (uint32_t)t + 1, site + k, addr + k,
                               5 - k < per_call ? 5 - k : per_call);
         }
      }
   sh_end_segment(m);
}

int main(int argc, char **argv)
{
   int sweeps = argc > 1 ? atoi(argv[1]) : 12, s, k;
   uint32_t per_call = argc > 2 ? (uint32_t)atoi(argv[2]) : 5;
   sh_model *m = sh_new(64);
   uint64_t u = 0x10000000, v = u + (uint64_t)N * N * 8 + 4096;
   sh_site site[5];
   double start;

   for (k = 0; k < 5; k++) {
      site[k].pos_id = sh_position(m, 0x400000 + 4 * (uint64_t)k);
      site[k].size = 8;
      site[k].kinds = k == 4 ? 2 : 1;
   }
   start = cpu_seconds();
   for (s = 0; s < sweeps; s++)
      sweep(m, site, s & 1 ? v : u, s & 1 ? u : v, per_call ? per_call : 5);
   printf("%.3f s, %u shared lines\n", cpu_seconds() - start, sh_nlines(m));
   sh_delete(m);
   return 0;
}
