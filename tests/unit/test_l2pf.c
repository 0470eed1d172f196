/*
** test_l2pf.c -- native unit tests of the optional L2 (cachesim/l2.c) and
** of the stream prefetcher (cachesim/streampf.c).
**
** Prints "PASS <group>" or "FAIL <group>: detail" per group; exits 0 only
** if every group passed.  Expectations are derived by hand in the
** comments, or are the oracles of issue 18 (the L1 misses do not change
** with any L2; an L2 of the LL's geometry misses where the two-level
** model's LL missed), checked against the two-level model.
**
** Geometries (64-byte lines; line n is the address BASE + 64 n, BASE =
** 0x100000 is 4 KiB aligned, so page p holds lines 64p .. 64p+63):
**   L1  = 512,2,64    4 sets x 2 ways: line n in set n % 4
**   L2  = 1024,2,64   8 sets x 2 ways: line n in set n % 8
**   LL4 = 2048,4,64   8 sets x 4 ways
**   D32 = 32768,8,64  64 sets x 8 ways (512 lines: 8 pages fit)
**   BIG = 262144,8,64
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include <stdio.h>
#include <string.h>
#include "cachesim.h"

#define BASE   0x100000ull
#define LINE(k) (BASE + 64ull * (k))

#include "check.h"

static const cs_geometry L1 = { 512, 2, 64 }, L2 = { 1024, 2, 64 },
   LL4 = { 2048, 4, 64 }, D32 = { 32768, 8, 64 }, BIG = { 262144, 8, 64 };

static cs_sim *mk(const cs_geometry *l1, const cs_geometry *l2,
                  const cs_geometry *ll, int wb)
{
   cs_options o = { wb, 0, 0, 0 };
   cs_sim *s = cs_new(l1, l1, ll, o, 0);
   if (l2)
      cs_set_l2(s, l2);
   return s;
}

enum { L1M = CS_L1_MISS, L2M = CS_L2_MISS, LLM = CS_LL_MISS,
       DIRTY = CS_LL_DIRTY_MISS };

/* ======================================================================== */

static void test_l2_levels(void)
{
   cs_sim *s = mk(&L1, &L2, &LL4, 0);

   begin();
   /* cold: every level misses */
   CHECK("line 0 cold", cs_read(s, LINE(0), 8, 0), L1M | L2M | LLM);
   CHECK("line 0 again", cs_read(s, LINE(0), 8, 0), 0);
   /* lines 4 and 8 share L1 set 0 (2 ways): 8 evicts 0 from L1 */
   CHECK("line 4 cold", cs_read(s, LINE(4), 8, 0), L1M | L2M | LLM);
   CHECK("line 8 cold", cs_read(s, LINE(8), 8, 0), L1M | L2M | LLM);
   /* L1 set 0 = (8, 4); L2 set 0 = (8, 0): an L1 miss that L2 serves */
   CHECK("line 0 from L2", cs_read(s, LINE(0), 8, 0), L1M);
   /* 16: L1 set 0, L2 set 0 (evicts 8), LL set 0 (4 ways: 0 8 16) */
   CHECK("line 16 cold", cs_read(s, LINE(16), 8, 0), L1M | L2M | LLM);
   /* 8: L1 set 0 = (16, 0) miss; L2 set 0 = (16, 0) miss; LL hit */
   CHECK("line 8 from LL", cs_read(s, LINE(8), 8, 0), L1M | L2M);
   /* instruction fetches go through the unified L2: 8 is now in L2 */
   CHECK("fetch of line 8 from L2", cs_instr(s, LINE(8), 4, 0), L1M);
   cs_delete(s);
   end("l2_levels");
}

/* Write-back: L1 and L2 write through, LL keeps the dirty bits. */
static void test_l2_write_back(void)
{
   cs_sim *s = mk(&L1, &L2, &LL4, 1);

   begin();
   CHECK("write 0 cold", cs_write(s, LINE(0), 8, 0), L1M | L2M | LLM);
   /* 8, 16, 24 all in L1 set 0, L2 set 0, LL set 0 */
   CHECK("read 8", cs_read(s, LINE(8), 8, 0), L1M | L2M | LLM);
   CHECK("read 16", cs_read(s, LINE(16), 8, 0), L1M | L2M | LLM);
   CHECK("read 24", cs_read(s, LINE(24), 8, 0), L1M | L2M | LLM);
   /* LL set 0 = (24, 16, 8, 0): 32 evicts the dirty line 0 */
   CHECK("read 32 evicts dirty 0", cs_read(s, LINE(32), 8, 0),
         L1M | L2M | LLM | DIRTY);
   /* L1 set 0 = (32, 24); a write hit there writes through: LL's 32
      becomes dirty without counting anything */
   CHECK("write hit 32", cs_write(s, LINE(32), 8, 0), 0);
   /* LL set 0 = (32, 24, 16, 8); 40, 48, 56 push 32 out: dirty */
   CHECK("read 40", cs_read(s, LINE(40), 8, 0), L1M | L2M | LLM);
   CHECK("read 48", cs_read(s, LINE(48), 8, 0), L1M | L2M | LLM);
   CHECK("read 56", cs_read(s, LINE(56), 8, 0), L1M | L2M | LLM);
   CHECK("read 64 evicts dirty 32", cs_read(s, LINE(64), 8, 0),
         L1M | L2M | LLM | DIRTY);
   cs_delete(s);
   end("l2_write_back");
}

/* The oracles: I1/D1 misses never change with an L2; an L2 of the LL's
   geometry misses exactly where the two-level LL missed (so does the
   three-level LL, which only sees L2's misses). */
static uint32_t rng_state = 12345;
static uint32_t next_rand(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 17;
   rng_state ^= rng_state << 5;
   return rng_state;
}

static void oracle_run(int wb)
{
   cs_sim *two = mk(&L1, 0, &LL4, wb), *same = mk(&L1, &LL4, &BIG, wb);
   cs_sim *small = mk(&L1, &L2, &LL4, wb);
   int i, l1_differ = 0, l2_differ = 0;

   rng_state = 12345;
   for (i = 0; i < 20000; i++) {
      uint32_t x = next_rand();
      uint64_t a = BASE + (x % 8192) * 4 + ((x >> 20) & 3) * 60;
      unsigned size = 1u << ((x >> 24) & 3), r2, r3, rs;
      int kind = (x >> 28) % 3;
      r2 = kind == 0 ? cs_instr(two, a, size, 0) : kind == 1
         ? cs_read(two, a, size, 0) : cs_write(two, a, size, 0);
      r3 = kind == 0 ? cs_instr(same, a, size, 0) : kind == 1
         ? cs_read(same, a, size, 0) : cs_write(same, a, size, 0);
      rs = kind == 0 ? cs_instr(small, a, size, 0) : kind == 1
         ? cs_read(small, a, size, 0) : cs_write(small, a, size, 0);
      l1_differ += (r2 & L1M) != (r3 & L1M) || (r2 & L1M) != (rs & L1M);
      l2_differ += !!(r2 & LLM) != !!(r3 & L2M);
   }
   CHECK(wb ? "wb: L1 misses differ" : "L1 misses differ", l1_differ, 0);
   CHECK(wb ? "wb: L2 misses differ from two-level LL" :
         "L2 misses differ from two-level LL", l2_differ, 0);
   cs_delete(two);
   cs_delete(same);
   cs_delete(small);
}

static void test_l2_oracles(void)
{
   begin();
   oracle_run(0);
   oracle_run(1);
   end("l2_oracles");
}

/* ---- stream prefetcher ---------------------------------------------------- */

static cs_sim *mk_pf(const cs_geometry *d1, const cs_geometry *l2,
                     int distance)
{
   cs_sim *s = mk(d1, l2, &BIG, 0);
   if (distance)
      cs_set_stream_prefetch(s, distance);
   return s;
}

/* Reads every 8 bytes of lines [first, first + n), up or down; returns the
   L1 misses, and adds the L2 misses and accesses issuing a prefetch. */
static int sweep(cs_sim *s, uint64_t first, int n, int down, int *l2m,
                 int *pf)
{
   int k, j, misses = 0;
   for (k = 0; k < n; k++) {
      uint64_t line = down ? first + (uint64_t)(n - 1 - k) : first + (uint64_t)k;
      for (j = 0; j < 8; j++) {
         unsigned r = cs_read(s, LINE(line) + 8u * (unsigned)(down ? 7 - j : j),
                              8, 0);
         misses += (r & L1M) != 0;
         if (l2m) *l2m += (r & L2M) != 0;
         if (pf) *pf += (r & CS_PF_ISSUED) != 0;
      }
   }
   return misses;
}

/* Per page (64 lines), upward: lines 0, 1, 2 miss and make a run of 3 at
   line 2, which prefetches 7; lines 3..6 miss and prefetch 8..11; from 7
   on every line is a prefetched line used for the first time and
   prefetches the line 5 further, as long as that is in the page: lines
   2..58 prefetch 7..63 (57 prefetches), 59..63 none.  So 7 misses and 57
   prefetches per page (64 misses without: 89% fewer), all 57 used.  A
   new page starts its own run: again 7 misses. */
static void test_spf_sequential(void)
{
   cs_sim *off = mk_pf(&D32, 0, 0), *on = mk_pf(&D32, 0, 5);
   cs_spf_counts n;
   int pf = 0, misses_off, misses_on;

   begin();
   misses_off = sweep(off, 0, 4 * 64, 0, 0, 0);
   misses_on = sweep(on, 0, 4 * 64, 0, 0, &pf);
   cs_stream_prefetch_counts(on, &n);
   CHECK("misses without", misses_off, 4 * 64);
   CHECK("misses with", misses_on, 4 * 7);
   CHECK("at least 80% fewer", 100 * (misses_off - misses_on) >= 80 * misses_off, 1);
   CHECK("issued", n.issued, 4 * 57);
   CHECK("accesses that issued", pf, 4 * 57);
   CHECK("used", n.used, 4 * 57);
   CHECK("unused", n.unused, 0);
   cs_delete(off);
   cs_delete(on);
   end("spf_sequential");
}

/* Downward, the mirror image: 63, 62, 61 miss (run of 3 at 61 prefetches
   56), 60..57 miss and prefetch 55..52, 56 down to 5 are used and
   prefetch 51..0; lines 4..0 prefetch nothing (below the page).  7 misses,
   57 prefetches per page. */
static void test_spf_descending(void)
{
   cs_sim *on = mk_pf(&D32, 0, 5);
   cs_spf_counts n;

   begin();
   CHECK("misses", sweep(on, 64, 3 * 64, 1, 0, 0), 3 * 7);
   cs_stream_prefetch_counts(on, &n);
   CHECK("issued", n.issued, 3 * 57);
   CHECK("used", n.used, 3 * 57);
   cs_delete(on);
   end("spf_descending");
}

/* A column walk: stride 4160 bytes (a page and a line), so no two
   accesses are in one page: never a run, never a prefetch, every miss as
   without the prefetcher. */
static void test_spf_column_walk(void)
{
   cs_sim *off = mk_pf(&D32, 0, 0), *on = mk_pf(&D32, 0, 5);
   cs_spf_counts n;
   int pass, i, m_off = 0, m_on = 0;

   begin();
   for (pass = 0; pass < 2; pass++)
      for (i = 0; i < 300; i++) {
         uint64_t a = BASE + 4160ull * (uint64_t)i;
         m_off += (cs_read(off, a, 8, 0) & L1M) != 0;
         m_on += (cs_read(on, a, 8, 0) & L1M) != 0;
      }
   cs_stream_prefetch_counts(on, &n);
   /* 300 lines in 64 sets of 8 ways: sets get 4 or 5 lines, all fit, so
      the second pass hits: 300 misses */
   CHECK("misses without", m_off, 300);
   CHECK("misses with", m_on, 300);
   CHECK("issued", n.issued, 0);
   cs_delete(off);
   cs_delete(on);
   end("spf_column_walk");
}

/* Distance and eviction unused: with distance 2, lines 0, 1, 2 prefetch
   4 (L1 set 0).  Lines 64+4 and 64+8 (another page, not consecutive: no
   run) go to set 0 too: 68 takes the front, 72 evicts the LRU -- the
   prefetched, never used line 4.  Then line 4 misses. */
static void test_spf_unused(void)
{
   cs_sim *s = mk_pf(&L1, 0, 2);
   cs_spf_counts n;

   begin();
   CHECK("0", cs_read(s, LINE(0), 8, 0), L1M | LLM);
   CHECK("1", cs_read(s, LINE(1), 8, 0), L1M | LLM);
   CHECK("2 prefetches 4", cs_read(s, LINE(2), 8, 0), L1M | LLM | CS_PF_ISSUED);
   cs_stream_prefetch_counts(s, &n);
   CHECK("issued", n.issued, 1);
   CHECK("68", cs_read(s, LINE(68), 8, 0), L1M | LLM);
   CHECK("72", cs_read(s, LINE(72), 8, 0), L1M | LLM);
   cs_stream_prefetch_counts(s, &n);
   CHECK("unused", n.unused, 1);
   CHECK("used", n.used, 0);
   /* 4 left L1 but the prefetch filled LL: an L1 miss only */
   CHECK("4 misses L1", cs_read(s, LINE(4), 8, 0), L1M);
   /* the detector saw 4 after 2 (page 0): the run starts over at 4; 5
      and 6 lengthen it to 3, and 6 prefetches 8 */
   CHECK("5", cs_read(s, LINE(5), 8, 0), L1M | LLM);
   CHECK("6 prefetches 8", cs_read(s, LINE(6), 8, 0), L1M | LLM | CS_PF_ISSUED);
   /* a prefetched line still in L1 at the clear leaves unused */
   cs_clear(s);
   cs_stream_prefetch_counts(s, &n);
   CHECK("issued at clear", n.issued, 2);
   CHECK("unused at clear", n.unused, 2);
   cs_delete(s);
   end("spf_unused");
}

/* With an L2, prefetches fill L2 too: a sweep's demand accesses miss L2
   only where they miss L1 (7 lines per page). */
static void test_spf_with_l2(void)
{
   static const cs_geometry l2 = { 131072, 8, 64 };
   cs_sim *s = mk_pf(&D32, &l2, 5);
   int l2m = 0;

   begin();
   CHECK("L1 misses", sweep(s, 0, 2 * 64, 0, &l2m, 0), 2 * 7);
   CHECK("L2 misses", l2m, 2 * 7);
   cs_delete(s);
   end("spf_with_l2");
}

/* ---- cache use with an L2 --------------------------------------------------- */

#include "record.h"

static int n_pf_used, n_pf_unused;
static long last_pf_owner;

static void on_prefetch_end(void *ctx, const cs_owner *o, int used)
{
   (void)ctx;
   if (used)
      n_pf_used++;
   else
      n_pf_unused++;
   last_pf_owner = (long)(uintptr_t)o->slot;
   record((event){ used ? 'U' : 'X', 1, last_pf_owner, 0, 0 });
}

static const cs_hooks hooks = { 0, on_load, on_evict, on_prefetch_end };

static const event *find(char kind, int level, long owner)
{
   int i;
   for (i = 0; i < n_ev; i++)
      if (ev[i].kind == kind && ev[i].level == level && ev[i].owner == owner)
         return &ev[i];
   return 0;
}

static cs_owner own(long id)
{
   cs_owner o = { (void *)(uintptr_t)id, 0, 0, 0 };
   return o;
}

/* Owner 1 reads 8 bytes at the start of line 0: 4 of the 32 mask bits
   (64-byte lines: 2 bytes a bit), so SpLoss = 28 * 2 = 56 and AcCost =
   1000 / 1 wherever that use arrives.  Loads: L1, then L2, then LL, all
   owned by 1.  Owner 2 reads lines 4 and 8 (L1 set 0): 8 evicts line 0
   from L1 (level 1: 1000, 56), which merges into its L2 line.  Owner 3
   reads 16: L1 set 0 evicts 4 (owner 2), L2 set 0 = (8, 0) evicts 0
   (level L2: 1000, 56, merged into its LL line).  The flush then reports
   LL's line 0: owner 3 read line 0 again (from LL: a new L1 and L2
   line), whose use merges at the flush through L2 into the same LL line:
   count 2, the same 4 bits (level 2: 500, 56).  Every load is matched by
   an eviction. */
static void test_use_l2(void)
{
   cs_options o = { 0, 0, 1, 0 };
   cs_sim *s = cs_new(&L1, &L1, &LL4, o, &hooks);
   cs_owner a = own(1), b = own(2), c = own(3);
   const event *e;

   begin();
   cs_set_l2(s, &L2);
   n_ev = n_load = n_evict = 0;
   CHECK("line 0", cs_read(s, LINE(0), 8, &a), L1M | L2M | LLM);
   CHECK("loads", n_load, 3);
   CHECK("L1 load first", ev[0].level, 1);
   CHECK("then L2", ev[1].level, CS_LEVEL_L2);
   CHECK("then LL", ev[2].level, 2);
   CHECK("line 4", cs_read(s, LINE(4), 8, &b), L1M | L2M | LLM);
   CHECK("line 8", cs_read(s, LINE(8), 8, &b), L1M | L2M | LLM);
   e = find('E', 1, 1);
   CHECK("L1 eviction of 0", e != 0, 1);
   CHECK("L1 AcCost", e ? e->ac : 0, 1000);
   CHECK("L1 SpLoss", e ? e->sp : 0, 56);
   CHECK("line 16", cs_read(s, LINE(16), 8, &c), L1M | L2M | LLM);
   e = find('E', CS_LEVEL_L2, 1);
   CHECK("L2 eviction of 0", e != 0, 1);
   CHECK("L2 AcCost", e ? e->ac : 0, 1000);
   CHECK("L2 SpLoss", e ? e->sp : 0, 56);
   /* line 0 is still in L2? no: L2 set 0 = (16, 8); LL set 0 has it */
   CHECK("line 0 from LL", cs_read(s, LINE(0), 8, &c), L1M | L2M);
   cs_flush(s);
   e = find('E', 2, 1);
   CHECK("LL eviction of 0", e != 0, 1);
   CHECK("LL AcCost", e ? e->ac : 0, 500);
   CHECK("LL SpLoss", e ? e->sp : 0, 56);
   CHECK("loads = evictions", n_load, n_evict);
   cs_delete(s);
   end("use_l2");
}

/* Cache use does not change any miss with an L2 (its lookups are the
   plain model's): the random run of the oracle, with and without. */
static void test_use_l2_same_misses(void)
{
   cs_options plain = { 0, 0, 0, 0 }, use = { 0, 0, 1, 0 };
   cs_sim *p = cs_new(&L1, &L1, &LL4, plain, 0);
   cs_sim *u = cs_new(&L1, &L1, &LL4, use, &hooks);
   cs_owner a = own(1);
   int i, differ = 0;

   begin();
   cs_set_l2(p, &L2);
   cs_set_l2(u, &L2);
   rng_state = 777;
   for (i = 0; i < 20000; i++) {
      uint32_t x = next_rand();
      uint64_t addr = BASE + (x % 8192) * 8;
      unsigned size = 1u << ((x >> 24) & 3), rp, ru;
      int kind = (x >> 28) % 3;
      rp = kind == 0 ? cs_instr(p, addr, size, 0) : kind == 1
         ? cs_read(p, addr, size, 0) : cs_write(p, addr, size, 0);
      ru = kind == 0 ? cs_instr(u, addr, size, &a) : kind == 1
         ? cs_read(u, addr, size, &a) : cs_write(u, addr, size, &a);
      /* a straddle sends both lines below L1 without cacheuse, only the
         missing one with it (cachesim/README.md): no straddles here */
      differ += rp != ru;
   }
   CHECK("results differ", differ, 0);
   cs_flush(u);
   CHECK("loads = evictions", n_load, n_evict);
   cs_delete(p);
   cs_delete(u);
   end("use_l2_same_misses");
}

/* Cache use with the prefetcher: the sequential sweep misses as without
   cache use (7 per page), every prefetch is reported used when its line
   leaves (at the flush for the last ones), owned by the access that
   triggered it.  Prefetched lines are loaded with count 0: a line read
   8 times after its prefetch reports AcCost 1000 / 8 = 125, as a missed
   line read 8 times does. */
static void test_use_spf_sweep(void)
{
   cs_options o = { 0, 0, 1, 0 };
   cs_sim *s = cs_new(&D32, &D32, &BIG, o, &hooks);
   cs_owner a = own(7);
   int k, j, misses = 0, pf = 0;

   begin();
   cs_set_stream_prefetch(s, 5);
   n_ev = n_load = n_evict = n_pf_used = n_pf_unused = 0;
   for (k = 0; k < 2 * 64; k++)
      for (j = 0; j < 8; j++) {
         unsigned r = cs_read(s, LINE(k) + 8u * (unsigned)j, 8, &a);
         misses += (r & L1M) != 0;
         pf += (r & CS_PF_ISSUED) != 0;
      }
   CHECK("misses", misses, 2 * 7);
   CHECK("prefetches", pf, 2 * 57);
   cs_flush(s);
   CHECK("used", n_pf_used, 2 * 57);
   CHECK("unused", n_pf_unused, 0);
   CHECK("owner", last_pf_owner, 7);
   CHECK("loads = evictions", n_load, n_evict);
   for (k = 0; k < n_ev; k++)
      if (ev[k].kind == 'E' && ev[k].level == 1 && ev[k].ac != 125)
         break;
   CHECK("every L1 line AcCost 125", k, n_ev);
   cs_delete(s);
   end("use_spf_sweep");
}

/* As spf_unused, with cache use: distance 2; owner 3's read of line 2
   prefetches 4 (L1 set 0) for owner 3; 68 and 72 (set 0, another page)
   evict it unused: on_prefetch_end(owner 3, unused), then its on_evict
   at level 1 with AcCost 0 and SpLoss 64 (all bytes unused). */
static void test_use_spf_unused(void)
{
   cs_options o = { 0, 0, 1, 0 };
   cs_sim *s = cs_new(&L1, &L1, &BIG, o, &hooks);
   cs_owner o1 = own(1), o2 = own(2), o3 = own(3), o4 = own(4);
   const event *e;
   int i;

   begin();
   cs_set_stream_prefetch(s, 2);
   n_ev = n_load = n_evict = n_pf_used = n_pf_unused = 0;
   cs_read(s, LINE(0), 8, &o1);
   cs_read(s, LINE(1), 8, &o2);
   CHECK("2 prefetches 4", cs_read(s, LINE(2), 8, &o3), L1M | LLM | CS_PF_ISSUED);
   cs_read(s, LINE(68), 8, &o4);
   cs_read(s, LINE(72), 8, &o4);
   CHECK("unused", n_pf_unused, 1);
   e = find('X', 1, 3);
   CHECK("reported for owner 3", e != 0, 1);
   /* the next event is the line's eviction */
   i = e ? (int)(e - ev) + 1 : 0;
   CHECK("then its on_evict", e && ev[i].kind == 'E' && ev[i].owner == 3, 1);
   CHECK("AcCost", e ? ev[i].ac : 1, 0);
   CHECK("SpLoss", e ? ev[i].sp : 0, 64);
   cs_flush(s);
   CHECK("loads = evictions", n_load, n_evict);
   cs_delete(s);
   end("use_spf_unused");
}

/* A core made from a sim with L2 and prefetcher has its own of both. */
static void test_cores(void)
{
   cs_sim *s = mk_pf(&D32, &L2, 5), *c;
   cs_spf_counts n;

   begin();
   c = cs_new_core(s);
   CHECK("core: L1 misses", sweep(c, 0, 64, 0, 0, 0), 7);
   cs_stream_prefetch_counts(c, &n);
   CHECK("core: issued", n.issued, 57);
   cs_stream_prefetch_counts(s, &n);
   CHECK("first: issued", n.issued, 0);
   /* first core: its own L2 is cold, the shared LL is not */
   CHECK("first: line 0", cs_read(s, LINE(0), 8, 0), L1M | L2M);
   cs_delete_core(c);
   cs_delete(s);
   end("cores");
}

int main(void)
{
   test_l2_levels();
   test_l2_write_back();
   test_l2_oracles();
   test_spf_sequential();
   test_spf_descending();
   test_spf_column_walk();
   test_spf_unused();
   test_spf_with_l2();
   test_cores();
   test_use_l2();
   test_use_l2_same_misses();
   test_use_spf_sweep();
   test_use_spf_unused();
   return failures ? 1 : 0;
}
