/*
** test_coherence.c -- native unit tests of cachesim/coherence.c (private
** caches, MSI write-invalidate, true/false sharing, Inv) and of the
** cachesim.c functions it relies on (cs_new_core, cs_d1_invalidate...).
**
** Hand-derived groups state every expectation in a comment.  The random
** groups compare against a brute-force model written here from the rules
** in coherence.h: per core an explicit LRU list per D1 set, coherence done
** by searching the other cores' lists (no directory, no holders, no
** filter), and a lost record per (core, line).
**
** Geometry: D1 = 512,2,64 (4 sets x 2 ways, line n in set n % 4),
** LL = 4096,4,64.  BASE = 0x100000 (line 0x4000, set 0).
*/
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "cachesim.h"
#include "coherence.h"

#include "check.h"

#define BASE   0x100000ull
#define LINE(k) (BASE + 64ull * (k))

static const cs_geometry L1 = { 512, 2, 64 }, LL = { 4096, 4, 64 };

/* ---- hooks: loads and evictions per owner ------------------------------- */
static long n_load, n_evict, evict_ac_of_7;

static void on_load(void *ctx, int level, const cs_owner *o)
{
   (void)ctx; (void)level; (void)o;
   n_load++;
}

static void on_evict(void *ctx, int level, const cs_owner *o, uint32_t ac,
                     uint32_t sp)
{
   (void)ctx; (void)sp;
   n_evict++;
   if (level == 1 && (uintptr_t)o->slot == 7)
      evict_ac_of_7 += ac;
}

static const cs_hooks hooks = { 0, on_load, on_evict, 0 };

static cs_owner own(long id)
{
   cs_owner o = { (void *)(uintptr_t)id, 0, 0, 0 };
   return o;
}

static cs_sim *mk(int wb, int use)
{
   cs_options o = { wb, 0, use, 0 };
   n_load = n_evict = evict_ac_of_7 = 0;
   return cs_new(&L1, &L1, &LL, o, use ? &hooks : 0);
}

/* One data access of core c: the cache model, then coherence.  Returns
   the cachesim result in bits 0-2 and cc_data's result from bit 8. */
static unsigned acc(cc_sys *sys, cc_core *c, uint64_t a, unsigned size,
                    int w)
{
   cs_owner o = own(100 + c->id);
   unsigned r = w ? cs_write(c->sim, a, size, &o) : cs_read(c->sim, a, size, &o);
   return r | cc_data(sys, c, a, size, r, w) << 8;
}

#define MISS(x)  ((x) & CS_L1_MISS)
#define CLS(x)   CC_CLASS((x) >> 8)
#define INV(x)   CC_INV((x) >> 8)

/* ---- hand-derived ------------------------------------------------------- */

static void test_two_cores(int use)
{
   cs_sim *s = mk(0, use);
   cc_sys *sys = cc_new(s);
   cc_core *c0 = cc_core_of(sys, 0), *c1 = cc_core_of(sys, 1);
   unsigned x;

   begin();
   CHECK("core 0 is the first sim", c0->sim == s, 1);
   CHECK("core 1 has its own D1", c1->sim != s, 1);
   CHECK("two cores", cc_n_cores(sys), 2);
   /* c0 writes bytes 0-7 of line 1: cold miss, nobody else holds it */
   x = acc(sys, c0, LINE(1), 8, 1);
   CHECK("c0 w: miss", MISS(x), 1);
   CHECK("c0 w: no class", CLS(x), CC_NONE);
   CHECK("c0 w: no inv", INV(x), 0);
   /* again: owned, filter hit */
   x = acc(sys, c0, LINE(1), 8, 1);
   CHECK("c0 w again: hit, nothing", x, 0);
   /* c1 writes bytes 8-15: its own cold miss; invalidates c0's copy */
   x = acc(sys, c1, LINE(1) + 8, 8, 1);
   CHECK("c1 w: miss", MISS(x), 1);
   CHECK("c1 w: not coherence (never held)", CLS(x), CC_NONE);
   CHECK("c1 w: 1 inv", INV(x), 1);
   CHECK("c0 no longer holds", cs_d1_holds(c0->sim, LINE(1)), 0);
   CHECK("c1 holds", cs_d1_holds(c1->sim, LINE(1)), 1);
   /* c0 reads bytes 0-7: lost to a store of bytes 8-15: false sharing */
   x = acc(sys, c0, LINE(1), 8, 0);
   CHECK("c0 r: miss", MISS(x), 1);
   CHECK("c0 r: false sharing", CLS(x), CC_FALSE);
   CHECK("c0 r: a load invalidates nothing", INV(x), 0);
   /* the record was consumed: a hit now, and c1 still holds it (shared) */
   x = acc(sys, c0, LINE(1), 8, 0);
   CHECK("c0 r again: hit", x, 0);
   CHECK("c1 keeps a shared copy", cs_d1_holds(c1->sim, LINE(1)), 1);
   x = acc(sys, c1, LINE(1) + 8, 8, 0);
   CHECK("c1 r: hit", x, 0);
   /* c1 writes again: its copy is shared now (c0 read it): upgrade, 1 inv */
   x = acc(sys, c1, LINE(1) + 8, 8, 1);
   CHECK("c1 w upgrade: hit", MISS(x), 0);
   CHECK("c1 w upgrade: 1 inv", INV(x), 1);
   /* c0 reads bytes 12-15: overlaps 8-15 written since it lost it: true */
   x = acc(sys, c0, LINE(1) + 12, 4, 0);
   CHECK("c0 r overlap: miss", MISS(x), 1);
   CHECK("c0 r overlap: true sharing", CLS(x), CC_TRUE);
   /* c1 writes byte 0 (upgrade, invalidates c0), then bytes 32-39 (owned,
      but c0 has a lost record: the filter is not used, the bytes reach
      the record); c0 reads 32-39: true sharing, by the second store */
   x = acc(sys, c1, LINE(1), 1, 1);
   CHECK("c1 w byte 0: 1 inv", INV(x), 1);
   x = acc(sys, c1, LINE(1) + 32, 8, 1);
   CHECK("c1 w 32: hit, no inv", x, 0);
   x = acc(sys, c0, LINE(1) + 32, 8, 0);
   CHECK("c0 r 32: true (second store)", CLS(x), CC_TRUE);
   /* a line c0 loses by eviction is no coherence miss: c0 reads lines
      2, 6, 10 (set 2, 2 ways): 10 evicts 2; c1 writes line 2: c0 does
      not hold it, 0 inv; c0 reads line 2: a plain miss, no class (it
      evicts 6) */
   acc(sys, c0, LINE(2), 8, 0);
   acc(sys, c0, LINE(6), 8, 0);
   acc(sys, c0, LINE(10), 8, 0);
   CHECK("line 2 evicted from c0", cs_d1_holds(c0->sim, LINE(2)), 0);
   x = acc(sys, c1, LINE(2), 8, 1);
   CHECK("c1 w line 2: c0 lost it already, 0 inv", INV(x), 0);
   x = acc(sys, c0, LINE(2), 8, 0);
   CHECK("c0 r line 2: miss", MISS(x), 1);
   CHECK("c0 r line 2: not coherence", CLS(x), CC_NONE);
   /* c0 now holds 2 (MRU) and 10 in set 2.  An invalidated way becomes
      the LRU one: c1 writes 2 again (its copy is shared since c0's read:
      1 inv); c0 reads 14 (set 2): it fills the emptied way, 10 stays */
   x = acc(sys, c1, LINE(2), 8, 1);
   CHECK("c1 w line 2 again: 1 inv", INV(x), 1);
   acc(sys, c0, LINE(14), 8, 0);
   CHECK("c0 keeps line 10", cs_d1_holds(c0->sim, LINE(10)), 1);
   CHECK("c0 holds line 14", cs_d1_holds(c0->sim, LINE(14)), 1);
   /* a straddling store over lines 20|21 held by c0: 2 inv */
   acc(sys, c0, LINE(20), 8, 0);
   acc(sys, c0, LINE(21), 8, 0);
   x = acc(sys, c1, LINE(21) - 4, 8, 1);
   CHECK("straddling store: 2 inv", INV(x), 2);
   /* c0's straddling read of bytes 60-63 | 0-3: both lost, both overlap */
   x = acc(sys, c0, LINE(21) - 4, 8, 0);
   CHECK("straddling read: true", CLS(x), CC_TRUE);
   /* c0 reads 20:0-7 (hit after the straddling reload) */
   x = acc(sys, c0, LINE(20), 8, 0);
   CHECK("then a hit", x, 0);
   cc_delete(sys);
   cs_delete(s);
   end(use ? "two cores, hand-derived (cacheuse)" : "two cores, hand-derived");
}

/* The three acceptance patterns, n hand-overs each, threads A (core 1)
   and B (core 2) alternating, A first:
   - false: A writes bytes 0-7, B bytes 8-15 of one line.  A's first store
     is a cold miss (0 inv); B's first a cold miss invalidating A (1 inv);
     every later store misses (its copy was invalidated by the other's
     store of disjoint bytes: false) and invalidates the other (1 inv).
     So misses 2n, false 2n-2, true 0, inv 2n-1.
   - true: both write bytes 0-7: the same with true instead of false.
   - padded: A line 1, B line 2: 2 cold misses, nothing else. */
static void test_patterns(void)
{
   static const char *names[3] = { "false", "true", "padded" };
   int p;

   begin();
   for (p = 0; p < 3; p++) {
      cs_sim *s = mk(0, 0);
      cc_sys *sys = cc_new(s);
      cc_core *a = cc_core_of(sys, 1), *b = cc_core_of(sys, 2);
      uint64_t addr_a = LINE(1), addr_b = p == 0 ? LINE(1) + 8
                                          : p == 1 ? LINE(1) : LINE(2);
      long n = 1000, i, miss = 0, ts = 0, fs = 0, inv = 0;
      char what[64];

      for (i = 0; i < 2 * n; i++) {
         unsigned x = (i & 1) ? acc(sys, b, addr_b, 8, 1)
                              : acc(sys, a, addr_a, 8, 1);
         miss += MISS(x) != 0;
         ts += CLS(x) == CC_TRUE;
         fs += CLS(x) == CC_FALSE;
         inv += INV(x);
      }
      snprintf(what, sizeof what, "%s: misses", names[p]);
      CHECK(what, miss, p < 2 ? 2 * n : 2);
      snprintf(what, sizeof what, "%s: D1Ts", names[p]);
      CHECK(what, ts, p == 1 ? 2 * n - 2 : 0);
      snprintf(what, sizeof what, "%s: D1Fs", names[p]);
      CHECK(what, fs, p == 0 ? 2 * n - 2 : 0);
      snprintf(what, sizeof what, "%s: Inv", names[p]);
      CHECK(what, inv, p < 2 ? 2 * n - 1 : 0);
      cc_delete(sys);
      cs_delete(s);
   }
   end("hand-over patterns: false, true, padded");
}

/* Cache use: an invalidated line reports its use at once, to its owner;
   every load is matched by one eviction after cc_flush. */
static void test_cacheuse_invalidation(void)
{
   cs_sim *s = mk(0, 1);
   cc_sys *sys = cc_new(s);
   cc_core *c0 = cc_core_of(sys, 0), *c1 = cc_core_of(sys, 1);
   cs_owner o7 = own(7), o8 = own(8);
   unsigned r;

   begin();
   /* owner 7 (core 0) reads line 3 twice: count 2 */
   r = cs_read(c0->sim, LINE(3), 4, &o7);
   cc_data(sys, c0, LINE(3), 4, r, 0);
   r = cs_read(c0->sim, LINE(3), 4, &o7);
   cc_data(sys, c0, LINE(3), 4, r, 0);
   CHECK("loads: D1 + LL", n_load, 2);
   /* core 1 writes it: core 0's copy leaves, AcCost1 = 1000/2 to owner 7 */
   r = cs_write(c1->sim, LINE(3), 4, &o8);
   CHECK("1 inv", CC_INV(cc_data(sys, c1, LINE(3), 4, r, 1)), 1);
   CHECK("owner 7 got AcCost1 500", evict_ac_of_7, 500);
   CHECK("one eviction so far", n_evict, 1);
   cc_flush(sys);
   CHECK("flush: every load evicted once", n_evict, n_load);
   CHECK("flush: c1 empty", cs_d1_holds(c1->sim, LINE(3)), 0);
   cc_delete(sys);
   cs_delete(s);
   end("cacheuse: invalidation reports, flush balances");
}

/* ---- one core: exactly the single-core model ---------------------------- */

static void test_one_core(int wb, int use)
{
   cs_sim *a = mk(wb, use), *b = mk(wb, use);
   cc_sys *sys = cc_new(b);
   cc_core *c = cc_core_of(sys, 0);
   int i;

   begin();
   rng = 12345;
   for (i = 0; i < 200000; i++) {
      uint64_t addr = LINE(rnd(40)) + rnd(64);
      unsigned size = 1u << rnd(4);
      int w = rnd(3) == 0;
      cs_owner o = own(1);
      unsigned ra = w ? cs_write(a, addr, size, &o) : cs_read(a, addr, size, &o);
      unsigned rb = w ? cs_write(c->sim, addr, size, &o)
                      : cs_read(c->sim, addr, size, &o);
      CHECK("same result", rb, ra);
      CHECK("no coherence event", cc_data(sys, c, addr, size, rb, w), 0);
   }
   cc_delete(sys);
   cs_delete(a);
   cs_delete(b);
   end(wb ? "one core = single-core model (write-back)"
          : use ? "one core = single-core model (cacheuse)"
                : "one core = single-core model");
}

/* ---- brute force -------------------------------------------------------- */

#define BF_CORES 140
#define BF_LINES 64                /* distinct lines: LINE(0..BF_LINES-1) */

typedef struct {
   uint64_t way[4][2];             /* per set, MRU first; 0 = empty */
   int      n[4];
   int      lost[BF_LINES];        /* has a lost record */
   uint64_t written[BF_LINES];
} bf_core;

static bf_core bf[BF_CORES];

static int bf_find(bf_core *c, uint64_t line)
{
   int s = (int)(line & 3), i;
   for (i = 0; i < c->n[s]; i++)
      if (c->way[s][i] == line)
         return i;
   return -1;
}

/* LRU reference of one line; 1 on a miss. */
static int bf_ref(bf_core *c, uint64_t line)
{
   int s = (int)(line & 3), i = bf_find(c, line), miss = i < 0;

   if (miss)
      i = c->n[s] < 2 ? c->n[s]++ : 1;
   for (; i > 0; i--)
      c->way[s][i] = c->way[s][i - 1];
   c->way[s][0] = line;
   return miss;
}

static void bf_remove(bf_core *c, uint64_t line)
{
   int s = (int)(line & 3), i = bf_find(c, line);
   for (; i < c->n[s] - 1; i++)
      c->way[s][i] = c->way[s][i + 1];
   c->n[s]--;
}

static uint64_t bits_of(unsigned first, unsigned last)
{
   uint64_t hi = last >= 63 ? ~0ull : (2ull << last) - 1;
   return hi & (~0ull << first);
}

/* Coherence of one line for core k; returns class | inv << 2. */
static unsigned bf_line(int n_cores, int k, uint64_t line, unsigned first,
                        unsigned last, int w)
{
   unsigned cls = CC_NONE, inv = 0;
   uint64_t bits = bits_of(first, last);
   int li = (int)(line - (BASE >> 6)), j;

   if (bf[k].lost[li]) {
      cls = (bf[k].written[li] & bits) ? CC_TRUE : CC_FALSE;
      bf[k].lost[li] = 0;
   }
   if (!w)
      return cls;
   for (j = 0; j < n_cores; j++) {
      if (j == k)
         continue;
      if (bf[j].lost[li])
         bf[j].written[li] |= bits;
      else if (bf_find(&bf[j], line) >= 0) {
         bf_remove(&bf[j], line);
         bf[j].lost[li] = 1;
         bf[j].written[li] = bits;
         inv++;
      }
   }
   return cls | inv << 2;
}

static unsigned bf_access(int n_cores, int k, uint64_t a, unsigned size, int w)
{
   uint64_t l1 = a >> 6, l2 = (a + size - 1) >> 6;
   int miss = bf_ref(&bf[k], l1);
   unsigned r1, r2, cls;

   if (l2 != l1)
      miss |= bf_ref(&bf[k], l2);
   if (l2 == l1)
      r1 = bf_line(n_cores, k, l1, a & 63, (a + size - 1) & 63, w);
   else {
      r1 = bf_line(n_cores, k, l1, a & 63, 63, w);
      r2 = bf_line(n_cores, k, l2, 0, (a + size - 1) & 63, w);
      cls = (CC_CLASS(r1) == CC_TRUE || CC_CLASS(r2) == CC_TRUE)
            ? CC_TRUE : CC_CLASS(r1) | CC_CLASS(r2);
      r1 = (CC_INV(r1) + CC_INV(r2)) << 2 | cls;
   }
   if (!miss)
      r1 &= ~3u;
   return (unsigned)miss | r1 << 8;
}

static void test_brute(const char *name, int n_cores, int n_lines, int wb,
                       int use, int steps, unsigned seed)
{
   cs_sim *s = mk(wb, use);
   cc_sys *sys = cc_new(s);
   long ts = 0, fs = 0, inv = 0;
   int i;

   begin();
   memset(bf, 0, sizeof bf);
   rng = seed;
   for (i = 0; i < steps; i++) {
      int k = (int)rnd((unsigned)n_cores);
      /* runs of one core, as under Valgrind's scheduler, sometimes */
      uint64_t addr = LINE(rnd((unsigned)n_lines)) + rnd(64);
      unsigned size = 1u << rnd(4);
      int w = rnd(2);
      unsigned want = bf_access(n_cores, k, addr, size, w);
      unsigned got = acc(sys, cc_core_of(sys, (unsigned)k), addr, size, w);
      CHECK("D1 miss", MISS(got), want & 1);
      CHECK("class", CLS(got), CLS(want));
      CHECK("inv", INV(got), INV(want));
      ts += CLS(got) == CC_TRUE;
      fs += CLS(got) == CC_FALSE;
      inv += INV(got);
   }
   /* the sequence must have exercised all three */
   CHECK("some true sharing", ts > 0, 1);
   CHECK("some false sharing", fs > 0, 1);
   CHECK("some invalidations", inv > 0, 1);
   if (use) {
      cc_flush(sys);
      CHECK("flush balances loads", n_evict, n_load);
   }
   cc_delete(sys);
   cs_delete(s);
   end(name);
}

/* Many lines over 3 cores, compared with the brute force on the D1
   misses and the events where it applies (lines 0..63, shared by all
   three), mixed with lines far away that it does not hold (only its D1s
   are kept in step): lines private to core 0, which must cause nothing,
   and a stream of lines that core 1 loses to core 0 and misses again
   W lines later (a true sharing miss when it reads the bytes core 0
   wrote, false otherwise).  Those leave lost records in the directory's
   table, consumed W lines later, so the table fills and sweeps and its
   entries stay bounded although ~100000 lines were lost; the line
   states span hundreds of chunks (the chunk table grows). */
enum { SWEEP_W = 100 };

static uint64_t lost_line_addr(long n)
{
   return BASE + (1ull << 31) + 64ull * 97 * (uint64_t)n;
}

/* Step n of the stream of lost lines: core 1 reads line n, core 0 writes
   it (invalidating core 1's copy), core 1 reads line n - W again. */
static void lose_and_miss(cc_sys *sys, long n)
{
   uint64_t a = lost_line_addr(n), b = lost_line_addr(n - SWEEP_W);
   cc_core *c0 = cc_core_of(sys, 0), *c1 = cc_core_of(sys, 1);
   unsigned got;

   got = acc(sys, c1, a, 4, 0);
   CHECK("lost line: core 1's read misses", MISS(got), CS_L1_MISS);
   CHECK("lost line: no event", got >> 8, 0);
   bf_ref(&bf[1], a >> 6);
   got = acc(sys, c0, a, 8, 1);
   CHECK("lost line: core 0's write invalidates core 1", got >> 8, 1u << 2);
   bf_ref(&bf[0], a >> 6);
   bf_remove(&bf[1], a >> 6);
   if (n < SWEEP_W)
      return;
   /* core 0 wrote bytes 0..7 of line n - W: bytes 0..3 are true sharing,
      bytes 32..35 false */
   b += (n & 1) ? 32 : 0;
   got = acc(sys, c1, b, 4, 0);
   CHECK("lost line again: a miss", MISS(got), CS_L1_MISS);
   CHECK("lost line again: its class", CLS(got), (n & 1) ? CC_FALSE : CC_TRUE);
   CHECK("lost line again: no inv", INV(got), 0);
   bf_ref(&bf[1], b >> 6);
}

static void test_sweep(void)
{
   cs_sim *s = mk(0, 0);
   cc_sys *sys = cc_new(s);
   cc_stats st;
   int i;
   long events = 0, n_lost = 0;

   begin();
   memset(bf, 0, sizeof bf);
   rng = 777;
   for (i = 0; i < 300000; i++) {
      int k = (int)rnd(3);
      unsigned got;
      if (k == 0 && rnd(2)) {
         /* a private line far away: core 0's D1 only */
         uint64_t addr = BASE + (1ull << 30) + 64ull * rnd(1u << 20);
         got = acc(sys, cc_core_of(sys, 0), addr, 8, rnd(2));
         CHECK("private line: no event", got >> 8, 0);
         /* keep the brute force's D1 of core 0 in step */
         bf_ref(&bf[0], addr >> 6);
         continue;
      }
      if (k == 1 && rnd(2)) {
         lose_and_miss(sys, n_lost++);
         continue;
      }
      {
         /* a crossing access may reach line BF_LINES - 1, not beyond */
         uint64_t addr = LINE(rnd(BF_LINES - 1)) + rnd(64);
         unsigned size = 1u << rnd(4);
         int w = rnd(2);
         unsigned want = bf_access(3, k, addr, size, w);
         got = acc(sys, cc_core_of(sys, (unsigned)k), addr, size, w);
         CHECK("D1 miss", MISS(got), want & 1);
         CHECK("class", CLS(got), CLS(want));
         CHECK("inv", INV(got), INV(want));
         events += (got >> 8) != 0;
      }
   }
   cc_get_stats(sys, &st);
   CHECK("events happened", events > 0, 1);
   CHECK("many lines lost", n_lost > 40000, 1);
   CHECK("the table swept", st.sweeps > 0, 1);
   /* the lost lines waiting (W) and the shared lines' records (at most
      3 x 64), far below the lines lost */
   CHECK("lost records now", st.lost_now >= SWEEP_W && st.lost_now <= SWEEP_W + 192, 1);
   CHECK("entries stay bounded", st.entries_max < 8192, 1);
   /* a chunk per 4 MiB: the lost lines span 97 x 64 x n_lost bytes */
   CHECK("line states in chunks",
         st.state_bytes / (128 * 1024) >= (97ull * 64 * (uint64_t)n_lost) >> 22, 1);
   cc_delete(sys);
   cs_delete(s);
   end("directory sweeps keep counts exact and memory bounded");
}

/* ---- the late LL fill with cores -------------------------------------- */

/* Each side's hook calls folded into one order-sensitive hash (ctx). */
static void fold(uint64_t *h, uint64_t v)
{
   *h = (*h ^ v) * 0x100000001b3ull;
}

static void late_on_load(void *ctx, int level, const cs_owner *o)
{
   fold(ctx, 1);
   fold(ctx, (uint64_t)level);
   fold(ctx, (uint64_t)(uintptr_t)o->slot);
}

static void late_on_evict(void *ctx, int level, const cs_owner *o,
                          uint32_t ac, uint32_t sp)
{
   fold(ctx, 2);
   fold(ctx, (uint64_t)level);
   fold(ctx, (uint64_t)(uintptr_t)o->slot);
   fold(ctx, ac);
   fold(ctx, sp);
}

static cs_sim *mk_hashed(uint64_t *h)
{
   cs_options o = { 0, 0, 1, 0 };
   cs_hooks hk = { h, late_on_load, late_on_evict, 0 };
   *h = 0xcbf29ce484222325ull;
   return cs_new(&L1, &L1, &LL, o, &hk);
}

/* Cores over one LL with the late LL fill (cs_new_core), driven as the
   tool drives them: runs of one core, the core that ran settled before
   another runs.  Against cores that fill at once: the same results of
   every access (cache and coherence), and the same hook calls in the
   same order at every switch (which settles) and after cc_flush.  The
   stores invalidate copies whose LL lines the storing core's waiting fill
   evicts: coherence.c settles the storing core first. */
static void test_late_fill_cores(void)
{
   uint64_t h_now, h_late;
   cs_sim *s_now = mk_hashed(&h_now), *s_late = mk_hashed(&h_late);
   cc_sys *now, *late;
   unsigned diff_r = 0, diff_h = 0, switches = 0, invs = 0, k = 0, k_new;
   int i;

   begin();
   cs_set_late_ll_fill(s_late, 1);
   now = cc_new(s_now);
   late = cc_new(s_late);
   rng = 99;
   for (i = 0; i < 200000; i++) {
      uint64_t addr = LINE(rnd(160)) + rnd(64);
      unsigned size = 1u << rnd(4), r_now, r_late;
      int w = rnd(3) == 0;
      if (rnd(16) == 0 && (k_new = rnd(3)) != k) {
         cs_settle(cc_core_of(late, k)->sim);
         k = k_new;
         switches++;
         if (h_now != h_late)
            diff_h++;
      }
      r_now = acc(now, cc_core_of(now, k), addr, size, w);
      r_late = acc(late, cc_core_of(late, k), addr, size, w);
      invs += INV(r_now);
      if (r_now != r_late)
         diff_r++;
   }
   cc_flush(now);
   cc_flush(late);
   CHECK("results", diff_r, 0);
   CHECK("hooks at every switch", diff_h, 0);
   CHECK("hooks after the flush", h_now == h_late, 1);
   CHECK("switched often", switches > 5000, 1);
   CHECK("invalidated often", invs > 5000, 1);
   cc_delete(now);
   cc_delete(late);
   cs_delete(s_now);
   cs_delete(s_late);
   end("late LL fill: cores settled at switches, as at once");
}

int main(void)
{
   test_two_cores(0);
   test_two_cores(1);
   test_patterns();
   test_cacheuse_invalidation();
   test_one_core(0, 0);
   test_one_core(1, 0);
   test_one_core(0, 1);
   test_brute("brute force: 2 cores", 2, 12, 0, 0, 200000, 1);
   test_brute("brute force: 4 cores, cacheuse", 4, 16, 0, 1, 200000, 2);
   test_brute("brute force: 3 cores, write-back", 3, 12, 1, 0, 200000, 3);
   test_brute("brute force: 130 cores", 130, 8, 0, 0,
              300000, 4);
   test_sweep();
   test_late_fill_cores();
   return failures ? 1 : 0;
}
