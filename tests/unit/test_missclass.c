/*
** test_missclass.c -- native unit tests of cachesim/missclass.c together
** with the cache model (cachesim.c) and its LL observer.
**
** Build and run (from the project root):
**   gcc -O2 -g -Wall -Wextra -Icachesim -o test_missclass \
**       tests/unit/test_missclass.c tests/unit/port_native.c \
**       cachesim/missclass.c cachesim/lrustack.c cachesim/lineset.c \
**       cachesim/cachesim.c cachesim/l2.c cachesim/streampf.c && ./test_missclass
**
** Prints "PASS <group>" or "FAIL <group>: detail" per group; exits 0 only
** if every group passed.  The pattern groups' expectations are derived by
** hand in the comments; the random groups check every classified miss
** against a naive classifier (array LRU + list of seen lines) fed with
** the same references, and the identity classes = misses per level.
**
** Geometry of the pattern groups (64-byte lines):
**   L1 = 512,2,64   -> 4 sets x 2 ways = 8 lines, line n in set n % 4
**   LL = 4096,4,64  -> 16 sets x 4 ways = 64 lines, line n in set n % 16
** Addresses ADDR(k) = BASE + 64 k with BASE = 0x100000 (line 0x4000, a
** multiple of 16 and 4 KiB aligned), so line k is in L1 set k % 4 and LL
** set k % 16, and lines 0..63 share one 4 KiB page (one prefetch stream).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachesim.h"
#include "missclass.h"

#include "check.h"

#define BASE 0x100000ull
#define ADDR(k) (BASE + 64ull * (k))

static const cs_geometry L1 = { 512, 2, 64 }, LL = { 4096, 4, 64 };

/* ---- a cache model with its classifier ------------------------------------ */

enum { I1, D1, LV_LL, LEVELS };
typedef struct {
   cs_sim *cs;
   mc_sim *mc;
   long miss[LEVELS];          /* the model's misses */
   long cls[LEVELS][4];        /* [level][MC_*] */
} rig;

static void rig_init(rig *g, const cs_geometry *l1, const cs_geometry *ll,
                     int wb, int hwpref, int use)
{
   cs_options o = { wb, hwpref, use, 0 };
   memset(g, 0, sizeof *g);
   g->cs = cs_new(l1, l1, ll, o, 0);
   g->mc = mc_new(l1, l1, ll, use);
   cs_set_ll_observer(g->cs, mc_observe_ll, g->mc);
}

static void rig_free(rig *g)
{
   cs_delete(g->cs);
   mc_delete(g->mc);
}

static void tally(rig *g, int l1, unsigned r, unsigned c)
{
   if (r & CS_L1_MISS) g->miss[l1]++;
   if (r & CS_LL_MISS) g->miss[LV_LL]++;
   g->cls[l1][c & 3]++;
   g->cls[LV_LL][(c >> 2) & 3]++;
}

static unsigned rd(rig *g, uint64_t a, unsigned size)
{
   unsigned r = cs_read(g->cs, a, size, 0);
   unsigned c = mc_access(g->mc, &g->mc->d1, a, size, r);
   tally(g, D1, r, c);
   return c;
}

static unsigned wr(rig *g, uint64_t a, unsigned size)
{
   unsigned r = cs_write(g->cs, a, size, 0);
   unsigned c = mc_access(g->mc, &g->mc->d1, a, size, r);
   tally(g, D1, r, c);
   return c;
}

static unsigned fetch(rig *g, uint64_t a, unsigned size)
{
   unsigned r = cs_instr(g->cs, a, size, 0);
   unsigned c = mc_access(g->mc, &g->mc->i1, a, size, r);
   tally(g, I1, r, c);
   return c;
}

/* classes of a level: compulsory, capacity, conflict */
#define CO(g, l) ((g)->cls[l][MC_COMPULSORY])
#define CA(g, l) ((g)->cls[l][MC_CAPACITY])
#define CF(g, l) ((g)->cls[l][MC_CONFLICT])

static void check_sums(rig *g, const char *label)
{
   static const char *names[LEVELS] = { "I1", "D1", "LL" };
   int l;
   for (l = 0; l < LEVELS; l++) {
      char what[96];
      snprintf(what, sizeof what, "%s: %s classes sum to misses", label,
               names[l]);
      CHECK(what, CO(g, l) + CA(g, l) + CF(g, l), g->miss[l]);
   }
}

/* ---- hand-derived patterns ------------------------------------------------ */

static void test_first_sweep(void)
{
   rig g;
   int k;

   begin();
   /* 8 distinct lines read once: every read misses D1 and LL, all first
      touches: 8 compulsory at each level. */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   for (k = 0; k < 8; k++)
      rd(&g, ADDR(k), 8);
   CHECK("D1 misses", g.miss[D1], 8);
   CHECK("D1 compulsory", CO(&g, D1), 8);
   CHECK("LL compulsory", CO(&g, LV_LL), 8);
   CHECK("LL misses", g.miss[LV_LL], 8);
   /* the same 8 lines again: they fit D1 (2 per set): all hit, nothing
      classified */
   for (k = 0; k < 8; k++)
      rd(&g, ADDR(k) + 16, 8);
   CHECK("D1 misses after 2nd pass", g.miss[D1], 8);
   check_sums(&g, "first sweep");
   rig_free(&g);
   end("first_sweep_compulsory");
}

static void test_capacity_sweep(void)
{
   rig g;
   int k, round;

   begin();
   /* 16 lines = 2x D1, swept 3 times.  Real D1: set s sees lines s, s+4,
      s+8, s+12 cyclically through 2 ways: every access misses (48).  The
      fully associative D1 (8 lines) under a 16-line cycle misses every
      time too: after the 16 first touches, 32 capacity, 0 conflict.
      LL (64 lines, 16 sets): lines 0..15 fall into 16 different sets:
      16 compulsory misses, then hits. */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   for (round = 0; round < 3; round++)
      for (k = 0; k < 16; k++)
         rd(&g, ADDR(k), 8);
   CHECK("D1 misses", g.miss[D1], 48);
   CHECK("D1 compulsory", CO(&g, D1), 16);
   CHECK("D1 capacity", CA(&g, D1), 32);
   CHECK("D1 conflict", CF(&g, D1), 0);
   CHECK("LL misses", g.miss[LV_LL], 16);
   CHECK("LL compulsory", CO(&g, LV_LL), 16);
   check_sums(&g, "capacity sweep");
   rig_free(&g);

   /* 128 lines = 2x LL, swept twice.  D1: 128 compulsory + 128 capacity.
      LL: each of the 16 sets sees 8 lines cyclically through 4 ways (all
      miss) and the 64-line fully associative LL misses a 128-line cycle:
      128 compulsory + 128 capacity. */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   for (round = 0; round < 2; round++)
      for (k = 0; k < 128; k++)
         rd(&g, ADDR(k), 8);
   CHECK("LL-sweep D1 compulsory", CO(&g, D1), 128);
   CHECK("LL-sweep D1 capacity", CA(&g, D1), 128);
   CHECK("LL-sweep LL compulsory", CO(&g, LV_LL), 128);
   CHECK("LL-sweep LL capacity", CA(&g, LV_LL), 128);
   CHECK("LL-sweep LL conflict", CF(&g, LV_LL), 0);
   check_sums(&g, "LL sweep");
   rig_free(&g);
   end("capacity_sweep");
}

static void test_conflict_stride(void)
{
   rig g;
   int k, round;

   begin();
   /* Stride of 4 lines: lines 0, 4, 8 all map to D1 set 0: 3 lines through
      2 ways, cyclically: every access misses (30 in 10 rounds), though 3
      lines are far fewer than D1's 8: 3 compulsory, 27 conflict.  LL sets
      0, 4, 8: 3 compulsory, then hits. */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   for (round = 0; round < 10; round++)
      for (k = 0; k < 3; k++)
         wr(&g, ADDR(4 * k), 4);
   CHECK("D1 misses", g.miss[D1], 30);
   CHECK("D1 compulsory", CO(&g, D1), 3);
   CHECK("D1 capacity", CA(&g, D1), 0);
   CHECK("D1 conflict", CF(&g, D1), 27);
   CHECK("LL misses", g.miss[LV_LL], 3);
   check_sums(&g, "D1 stride");
   rig_free(&g);

   /* Stride of 16 lines: lines 0, 16, 32, 48, 64 all in LL set 0 (and D1
      set 0): 5 lines through 4 LL ways, cyclically, all miss, though the
      64-line LL holds them easily; D1 likewise (5 through 2 ways, 8
      lines).  6 rounds: 5 compulsory + 25 conflict at both levels. */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   for (round = 0; round < 6; round++)
      for (k = 0; k < 5; k++)
         rd(&g, ADDR(16 * k), 8);
   CHECK("LL misses", g.miss[LV_LL], 30);
   CHECK("LL compulsory", CO(&g, LV_LL), 5);
   CHECK("LL capacity", CA(&g, LV_LL), 0);
   CHECK("LL conflict", CF(&g, LV_LL), 25);
   CHECK("D1 conflict", CF(&g, D1), 25);
   check_sums(&g, "LL stride");
   rig_free(&g);
   end("conflict_stride");
}

static void test_instr(void)
{
   rig g;
   int k, round;

   begin();
   /* Instruction fetches classify I1 the same way: 12 lines (1.5x I1)
      fetched 4 bytes at a time, 16 fetches per line, 3 rounds.  I1 sets
      get 3 lines each (k, k+4, k+8) through 2 ways: the first fetch of
      each line misses (36), later fetches of a line hit.  Fully
      associative 8 lines under a 12-line cycle: capacity.  12 compulsory,
      24 capacity. */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   for (round = 0; round < 3; round++)
      for (k = 0; k < 12 * 16; k++)
         fetch(&g, BASE + 4ull * k, 4);
   CHECK("I1 misses", g.miss[I1], 36);
   CHECK("I1 compulsory", CO(&g, I1), 12);
   CHECK("I1 capacity", CA(&g, I1), 24);
   CHECK("LL compulsory", CO(&g, LV_LL), 12);
   CHECK("LL misses", g.miss[LV_LL], 12);
   check_sums(&g, "instr");
   rig_free(&g);
   end("instr_fetch");
}

static void test_straddle(void)
{
   rig g;

   begin();
   /* line 0 read (compulsory), then 8 bytes crossing 0|1: line 0 hits,
      line 1 misses: one miss, compulsory (line 1 is new). */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   CHECK("line 0", rd(&g, ADDR(0), 8) & 3, MC_COMPULSORY);
   CHECK("0|1", rd(&g, ADDR(1) - 4, 8) & 3, MC_COMPULSORY);
   CHECK("D1 misses", g.miss[D1], 2);
   /* lines 4 and 8 (set 0) evict line 0 (2 ways); lines 0, 1 are in the
      8-line fully associative shadow: crossing 0|1 again misses on line 0
      only: conflict */
   rd(&g, ADDR(4), 8);
   rd(&g, ADDR(8), 8);
   CHECK("0|1 again", rd(&g, ADDR(1) - 4, 8) & 3, MC_CONFLICT);
   check_sums(&g, "straddle");
   rig_free(&g);
   end("straddle");
}

static void test_prefetch(void)
{
   rig g;
   int k, round;

   begin();
   /* hwpref, lines 0..31 (one 4 KiB page, one stream) read twice.
      Sweep 1: all D1 misses (32 compulsory).  The detector: line 0 starts
      the stream, line 1 makes the run 1, from line 2 on each line k
      prefetches line k+5 before its own LL lookup.  So LL demand misses
      are lines 0..6 (7, compulsory); lines 7..31 were prefetched: hits.
      LL now holds lines 0..36, at most 3 per set: no LL eviction.
      Sweep 2: D1 misses all 32 again (32-line cycle, 8-line D1: capacity);
      LL hits everything (prefetches find lines present). */
   rig_init(&g, &L1, &LL, 0, 1, 0);
   for (round = 0; round < 2; round++)
      for (k = 0; k < 32; k++)
         rd(&g, ADDR(k), 8);
   CHECK("D1 compulsory", CO(&g, D1), 32);
   CHECK("D1 capacity", CA(&g, D1), 32);
   CHECK("LL misses", g.miss[LV_LL], 7);
   CHECK("LL compulsory", CO(&g, LV_LL), 7);
   /* Line 33 was only ever prefetched (by line 28).  LL set 1 now holds
      lines 1, 17, 33 (most recent first: 33, 17, 1) and one empty way.
      Reading lines 49, 65, 81, 97 (set 1; new, no adjacent run, so no
      prefetch) fills the empty way and evicts 1, 17, 33: 4 compulsory LL
      misses.  Reading line 33 then misses LL: not a first touch of LL
      (the prefetch brought it in), and the fully associative LL saw only
      ~10 distinct lines since: conflict.  In D1 it is a first touch. */
   rd(&g, ADDR(49), 8);
   rd(&g, ADDR(65), 8);
   rd(&g, ADDR(81), 8);
   rd(&g, ADDR(97), 8);
   CHECK("LL compulsory after 4", CO(&g, LV_LL), 11);
   k = (int)rd(&g, ADDR(33), 8);
   CHECK("line 33 D1 class", k & 3, MC_COMPULSORY);
   CHECK("line 33 LL class", (k >> 2) & 3, MC_CONFLICT);
   check_sums(&g, "prefetch");
   rig_free(&g);
   end("prefetch");
}

static void test_write_back(void)
{
   rig g;

   begin();
   /* With write-back a D1 write hit still references LL (write-through):
      that reference is not a miss and nothing is classified. */
   rig_init(&g, &L1, &LL, 1, 0, 0);
   CHECK("first write", wr(&g, ADDR(3), 8), MC_COMPULSORY | MC_COMPULSORY << 2);
   CHECK("write hit", wr(&g, ADDR(3) + 8, 8), 0);
   CHECK("read hit", rd(&g, ADDR(3) + 16, 8), 0);
   CHECK("LL misses", g.miss[LV_LL], 1);
   check_sums(&g, "wb");
   rig_free(&g);
   end("write_back");
}

static void test_clear(void)
{
   rig g;

   begin();
   /* After the caches are emptied (instrumentation switched), the next
      access to a known line is a first touch again. */
   rig_init(&g, &L1, &LL, 0, 0, 0);
   rd(&g, ADDR(5), 8);
   cs_clear(g.cs);
   mc_clear(g.mc);
   CHECK("after clear", rd(&g, ADDR(5), 8), MC_COMPULSORY | MC_COMPULSORY << 2);
   check_sums(&g, "clear");
   rig_free(&g);
   end("clear");
}

/* ---- random accesses against a naive classifier ------------------------- */


#define NAIVE_MAX 8192
typedef struct {
   uint64_t fa[NAIVE_MAX];     /* MRU first */
   int n, cap;
   uint64_t seen[NAIVE_MAX];
   int n_seen;
} naive_level;

static unsigned naive_ref(naive_level *l, uint64_t line, int count_seen)
{
   int i, p = -1;
   unsigned f = 0;
   for (i = 0; i < l->n; i++)
      if (l->fa[i] == line) { p = i; break; }
   if (p < 0) {
      f = MC_FA_MISS;
      p = l->n < l->cap ? l->n++ : l->cap - 1;
   }
   for (i = p; i > 0; i--)
      l->fa[i] = l->fa[i - 1];
   l->fa[0] = line;
   if (!count_seen)
      return f;
   for (i = 0; i < l->n_seen; i++)
      if (l->seen[i] == line)
         return f;
   if (l->n_seen < NAIVE_MAX)
      l->seen[l->n_seen++] = line;
   return f | MC_FIRST;
}

static naive_level nv[LEVELS];
static unsigned nv_ll_flags;
static mc_sim *obs_mc;

/* Observer wrapper: the classifier and the naive model see the same LL
   references. */
static void both_observe(void *ctx, uint64_t line, int kind)
{
   (void)ctx;
   mc_observe_ll(obs_mc, line, kind);
   if (kind == CS_LL_DEMAND)
      nv_ll_flags |= naive_ref(&nv[LV_LL], line, 1);
   else if (kind == CS_LL_PREFETCH)
      naive_ref(&nv[LV_LL], line, 1);
   else
      naive_ref(&nv[LV_LL], line | (1ull << 63), 0);
}

static unsigned naive_class(unsigned f)
{
   return (f & MC_FIRST) ? MC_COMPULSORY
             : (f & MC_FA_MISS) ? MC_CAPACITY : MC_CONFLICT;
}

static void random_run(const cs_geometry *i1, const cs_geometry *d1,
                       const cs_geometry *ll, int wb, int hwpref, int use,
                       unsigned universe, int n, const char *label)
{
   cs_options o = { wb, hwpref, use, 0 };
   cs_sim *cs = cs_new(i1, d1, ll, o, 0);
   mc_sim *mc = mc_new(i1, d1, ll, use);
   const cs_geometry *gl[LEVELS] = { i1, d1, ll };
   long miss[LEVELS] = { 0 }, cls[LEVELS][4];
   int i, l;

   memset(cls, 0, sizeof cls);
   memset(nv, 0, sizeof nv);
   for (l = 0; l < LEVELS; l++)
      nv[l].cap = gl[l]->size / gl[l]->line_size;
   obs_mc = mc;
   cs_set_ll_observer(cs, both_observe, 0);
   for (i = 0; i < n && !group_failed; i++) {
      int kind = rnd(3), lv = kind == 2 ? I1 : D1;
      const cs_geometry *g = gl[lv];
      unsigned size = 1u << rnd(4);                 /* 1, 2, 4, 8 */
      /* mostly aligned, sometimes crossing a line */
      uint64_t a = BASE + 8ull * rnd(universe * 8) + (rnd(8) == 0 ? 60 : 0);
      uint64_t line1 = a >> __builtin_ctz(g->line_size);
      uint64_t line2 = (a + size - 1) >> __builtin_ctz(g->line_size);
      unsigned r, c, nf;
      char what[128];

      nv_ll_flags = 0;
      r = kind == 0 ? cs_read(cs, a, size, 0)
            : kind == 1 ? cs_write(cs, a, size, 0) : cs_instr(cs, a, size, 0);
      c = mc_access(mc, lv == I1 ? &mc->i1 : &mc->d1, a, size, r);
      nf = naive_ref(&nv[lv], line1, 1);
      if (line2 != line1 && (!use || g->size / g->line_size / g->assoc > 1))
         nf |= naive_ref(&nv[lv], line2, 1);
      if (r & CS_L1_MISS) miss[lv]++;
      if (r & CS_LL_MISS) miss[LV_LL]++;
      cls[lv][c & 3]++;
      cls[LV_LL][(c >> 2) & 3]++;
      snprintf(what, sizeof what, "%s access %d L1 class", label, i);
      CHECK(what, c & 3, (r & CS_L1_MISS) ? naive_class(nf) : MC_NONE);
      snprintf(what, sizeof what, "%s access %d LL class", label, i);
      CHECK(what, (c >> 2) & 3,
            (r & CS_LL_MISS) ? naive_class(nv_ll_flags) : MC_NONE);
   }
   for (l = 0; l < LEVELS; l++) {
      char what[96];
      snprintf(what, sizeof what, "%s level %d: classes = misses", label, l);
      CHECK(what, cls[l][1] + cls[l][2] + cls[l][3], miss[l]);
   }
   /* the run must exercise every class somewhere */
   if (!group_failed && (cls[D1][MC_CAPACITY] == 0 || cls[D1][MC_CONFLICT] == 0))
      CHECK("random run exercises D1 capacity and conflict", 0, 1);
   cs_delete(cs);
   mc_delete(mc);
}

/* Two cores (--private-caches): each has its own D1 shadow, the LL shadow
   is shared like the LL.  Core 0 reads line 0: D1 and LL compulsory.
   Core 1 reads it: a D1 miss, compulsory in ITS D1 (never touched there),
   an LL hit (core 0 brought it in): no LL class.  Core 0 again: a hit.
   Core 1 reads lines 4, 8 (D1 set 0, 2 ways: evicts line 0 from core 1
   only) and line 0 again: a D1 miss, conflict (3 distinct lines fit
   core 1's 8-line shadow), an LL hit; core 0 still hits. */
static void test_cores(void)
{
   cs_options o = { 0, 0, 0, 0 };
   cs_sim *cs0 = cs_new(&L1, &L1, &LL, o, 0);
   mc_sim *mc0 = mc_new(&L1, &L1, &LL, 0);
   cs_sim *cs1;
   mc_sim *mc1;
   unsigned r, c;

   begin();
   cs_set_ll_observer(cs0, mc_observe_ll, mc0);
   cs1 = cs_new_core(cs0);
   mc1 = mc_new_core(mc0, &L1, &L1, 0);
   cs_set_ll_observer(cs1, mc_observe_ll, mc1);
   r = cs_read(cs0, ADDR(0), 8, 0);
   c = mc_access(mc0, &mc0->d1, ADDR(0), 8, r);
   CHECK("core 0: D1 compulsory", c & 3, MC_COMPULSORY);
   CHECK("core 0: LL compulsory", c >> 2, MC_COMPULSORY);
   r = cs_read(cs1, ADDR(0), 8, 0);
   c = mc_access(mc1, &mc1->d1, ADDR(0), 8, r);
   CHECK("core 1: D1 miss, LL hit", r, CS_L1_MISS);
   CHECK("core 1: D1 compulsory, no LL class", c, MC_COMPULSORY);
   r = cs_read(cs0, ADDR(0), 8, 0);
   CHECK("core 0 still holds it", r, 0);
   r = cs_read(cs1, ADDR(4), 8, 0);
   mc_access(mc1, &mc1->d1, ADDR(4), 8, r);
   r = cs_read(cs1, ADDR(8), 8, 0);
   mc_access(mc1, &mc1->d1, ADDR(8), 8, r);
   r = cs_read(cs1, ADDR(0), 8, 0);
   c = mc_access(mc1, &mc1->d1, ADDR(0), 8, r);
   CHECK("core 1: line 0 evicted by its own set 0", r, CS_L1_MISS);
   CHECK("core 1: conflict (fits its 8-line shadow)", c, MC_CONFLICT);
   r = cs_read(cs0, ADDR(0), 8, 0);
   CHECK("core 0 unaffected", r, 0);
   mc_delete_core(mc1);
   cs_delete_core(cs1);
   mc_delete(mc0);
   cs_delete(cs0);
   end("cores: own D1 shadows, one LL shadow");
}

static void test_random(void)
{
   static const cs_geometry l1a = { 512, 2, 64 }, lla = { 4096, 4, 64 },
                                        l1b = { 1024, 4, 32 }, llb = { 2048, 2, 64 },
                                        fa1 = { 512, 8, 64 }, l1c = { 256, 1, 32 };
   begin();
   random_run(&l1a, &l1a, &lla, 0, 0, 0, 300, 60000, "plain");
   random_run(&l1a, &l1a, &lla, 1, 0, 0, 300, 60000, "wb");
   random_run(&l1a, &l1a, &lla, 0, 1, 0, 300, 60000, "hwpref");
   random_run(&l1a, &l1a, &lla, 1, 1, 0, 300, 60000, "wb+hwpref");
   random_run(&l1a, &l1a, &lla, 0, 0, 1, 300, 60000, "use");
   random_run(&l1a, &l1a, &lla, 1, 1, 1, 300, 60000, "use+wb+hwpref");
   random_run(&l1b, &l1b, &llb, 0, 0, 0, 200, 60000, "lines32/64");
   random_run(&l1b, &l1b, &llb, 0, 1, 1, 200, 60000, "lines32/64+use+hwpref");
   random_run(&fa1, &l1c, &llb, 0, 0, 1, 100, 40000, "fullyassoc+direct+use");
   end("random_vs_naive");
}

/* --L2 (cachesim/l2.c): with an L2 of the LL's geometry (and a bigger
   LL) the L2 sees what the two-level LL saw, so every access's L2 class
   (bits 4-5) is the two-level run's LL class (bits 2-3), and its L1
   class the two-level one; a class comes exactly with a miss.  Random
   accesses, plain and with cacheuse. */
static void l2_run(int use)
{
   static const cs_geometry big = { 16384, 4, 64 };
   cs_options o = { 0, 0, use, 0 };
   cs_sim *two = cs_new(&L1, &L1, &LL, o, 0), *three = cs_new(&L1, &L1, &big, o, 0);
   mc_sim *m2 = mc_new(&L1, &L1, &LL, use), *m3 = mc_new(&L1, &L1, &big, use);
   cs_owner ow = { 0, 0, 0, 0 };
   int i, differ = 0, bad = 0, l2_misses = 0;

   cs_set_l2(three, &LL);
   mc_set_l2(m3, &LL);
   cs_set_ll_observer(two, mc_observe_ll, m2);
   cs_set_ll_observer(three, mc_observe_ll, m3);
   rng = 99;
   for (i = 0; i < 30000; i++) {
      uint64_t a = BASE + 8 * rnd(2048);
      int w = rnd(3) == 0;
      unsigned r2 = w ? cs_write(two, a, 8, &ow) : cs_read(two, a, 8, &ow);
      unsigned r3 = w ? cs_write(three, a, 8, &ow) : cs_read(three, a, 8, &ow);
      unsigned c2 = mc_access(m2, &m2->d1, a, 8, r2);
      unsigned c3 = mc_access(m3, &m3->d1, a, 8, r3);
      differ += (c2 & 3) != (c3 & 3) || ((c2 >> 2) & 3) != ((c3 >> 4) & 3);
      bad += !!(r3 & CS_L2_MISS) != !!((c3 >> 4) & 3);
      l2_misses += (r3 & CS_L2_MISS) != 0;
   }
   CHECK(use ? "use: classes differ" : "classes differ", differ, 0);
   CHECK("a class without a miss, or a miss without", bad, 0);
   CHECK("L2 misses happened", l2_misses > 1000, 1);
   mc_delete(m2);
   mc_delete(m3);
   cs_delete(two);
   cs_delete(three);
}

static void test_l2(void)
{
   begin();
   l2_run(0);
   l2_run(1);
   end("l2");
}

int main(void)
{
   test_first_sweep();
   test_capacity_sweep();
   test_conflict_stride();
   test_instr();
   test_straddle();
   test_prefetch();
   test_write_back();
   test_clear();
   test_random();
   test_cores();
   test_l2();
   return failures ? 1 : 0;
}
