/* missclass-bench.c -- native timing of the miss classifier and the
   reuse-distance stack on the access pattern of perf/missclass-work's
   `random` workload (no Valgrind, so far less noise from the machine):
   per iteration 2 fetches on alternating lines and one read or write at
   a random 8-byte slot of a 4 MiB table (which the bench also really
   reads and writes, as the program does under Valgrind).  Caches as on the test machine's
   default (I1 32K/8, D1 48K/12, LL 512M/2, 64-byte lines), or D1/LL given.

   usage: missclass-bench none|mc|mcl1|rd|both [millions of iterations]
   prints the CPU seconds of the loop.                                     */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cachesim.h"
#include "missclass.h"
#include "reusedist.h"

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "both";
  long iters = (argc > 2 ? atol(argv[2]) : 4) * 1000000L, i;
  cs_geometry i1 = { 32768, 8, 64 }, d1 = { 49152, 12, 64 },
              ll = { 512u << 20, 2, 64 };
  cs_options o = { 0, 0, 0, 0 };
  cs_sim *cs = cs_new(&i1, &d1, &ll, o, 0);
  int use_mc = !strcmp(mode, "mc") || !strcmp(mode, "both") || !strcmp(mode, "mcl1");
  int use_rd = !strcmp(mode, "rd") || !strcmp(mode, "both");
  mc_sim *mc = use_mc ? mc_new(&i1, &d1, &ll, 0) : 0;
  rd_sim *rd = use_rd ? rd_new((uint32_t)(ll.size / ll.line_size), 64) : 0;
  unsigned long x = 88172645463325252ul, n = (4u << 20) / 8, sum = 0;
  uint64_t table = 0x5000000, code = 0x401000 + 48;
  clock_t t0;
  /* the program's own table, as the host sees it under Valgrind: its
     random accesses compete with the models' memory for the host's caches */
  unsigned long *guest = calloc(n, sizeof *guest);

  if (mc && strcmp(mode, "mcl1"))    /* mcl1: the L1 shadows only */
    cs_set_ll_observer(cs, mc_observe_ll, mc);
  t0 = clock();
  for (i = 0; i < iters; i++) {
    uint64_t a, pc;
    unsigned r;
    int k;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    for (k = 0; k < 2; k++) {
      pc = code + 24 * k;
      r = cs_instr(cs, pc, 4, 0);
      if (mc) sum += mc_access(mc, &mc->i1, pc, 4, r);
    }
    a = table + 8 * (x % n);
    guest[x % n] += x;
    r = (x & 1) ? cs_write(cs, a, 8, 0) : cs_read(cs, a, 8, 0);
    if (mc) sum += mc_access(mc, &mc->d1, a, 8, r);
    if (rd) sum += (unsigned long)rd_access(rd, a, 8);
  }
  printf("%s %.3f s (%lu)\n", mode, (double)(clock() - t0) / CLOCKS_PER_SEC,
         sum + guest[0]);
  return 0;
}
