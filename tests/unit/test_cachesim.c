/*
** test_cachesim.c -- native unit tests of cachesim/cachesim.c.
**
** Build and run (from the project root):
**   gcc -O2 -g -Wall -Wextra -Icachesim -o test_cachesim \
**       tests/unit/test_cachesim.c tests/unit/port_native.c \
**       cachesim/cachesim.c cachesim/branchsim.c cachesim/l2.c cachesim/streampf.c && ./test_cachesim
**
** Prints one line "PASS <group>" or "FAIL <group>: detail" per group and
** exits 0 only if every group passed.  Every expectation is derived by
** hand in the comments, never computed with the code under test.
**
** Small geometries used throughout (64-byte lines):
**   L1 = 512,2,64   -> 4 sets x 2 ways: line n in set n % 4
**   LL = 1024,2,64  -> 8 sets x 2 ways: line n in set n % 8
**   LL4 = 2048,4,64 -> 8 sets x 4 ways
** Addresses start at BASE = 0x100000 (line 0x4000, a multiple of 8, so
** "line n0 + k" is in L1 set k % 4 and LL set k % 8).  Empty ways hold no
** line in any mode (group no_false_hits checks low addresses, 64-bit
** tags and big LLs).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include <stdio.h>
#include <string.h>
#include "cachesim.h"
#include "backdate.h"

#define BASE   0x100000ull
#define LINE(k) (BASE + 64ull * (k))

#include "check.h"

/* ---- recording hooks ---------------------------------------------------- */
#include "record.h"

static const cs_hooks hooks = { 0, on_load, on_evict, 0 };

static void reset_events(void) { n_ev = n_load = n_evict = 0; }

/* Index of the first eviction event at level from owner, or -1. */
static int find_evict(int level, long owner)
{
   int i;
   for (i = 0; i < n_ev; i++)
      if (ev[i].kind == 'E' && ev[i].level == level && ev[i].owner == owner)
         return i;
   return -1;
}

static cs_owner own(long id)
{
   cs_owner o = { (void *)(uintptr_t)id, 0, 0, 0 };
   return o;
}

static const cs_geometry L1 = { 512, 2, 64 }, LL = { 1024, 2, 64 },
                                     LL4 = { 2048, 4, 64 };

static cs_sim *mk(const cs_geometry *l1, const cs_geometry *ll, int wb,
                  int hwpref, int use)
{
   cs_options o = { wb, hwpref, use, 0 };
   reset_events();
   return cs_new(l1, l1, ll, o, use ? &hooks : 0);
}

/* ======================================================================== */

static void test_geometry_check(void)
{
   const char *set_msg = "Cache set count is not a power of two.\n";
   begin();
   /* defaults are valid */
   CHECK("65536,2,64 ok", cs_geometry_check(&(cs_geometry){65536, 2, 64}) == 0, 1);
   CHECK("262144,8,64 ok", cs_geometry_check(&(cs_geometry){262144, 8, 64}) == 0, 1);
   /* fully associative (1 set) is accepted: 1024/64/16 = 1 = 2^0 */
   CHECK("1024,16,64 ok", cs_geometry_check(&(cs_geometry){1024, 16, 64}) == 0, 1);
   /* 65536 % (3*64) = 64 != 0 */
   CHECK("65536,3,64", strcmp(cs_geometry_check(&(cs_geometry){65536, 3, 64}), set_msg), 0);
   /* 384/64/2 = 3 sets */
   CHECK("384,2,64", strcmp(cs_geometry_check(&(cs_geometry){384, 2, 64}), set_msg), 0);
   /* set count is checked before the line size: 1024 % 96 = 64 */
   CHECK("1024,2,48", strcmp(cs_geometry_check(&(cs_geometry){1024, 2, 48}), set_msg), 0);
   /* 384 % 96 = 0, 4 sets, but 48 is no power of two */
   CHECK("384,2,48", strcmp(cs_geometry_check(&(cs_geometry){384, 2, 48}),
                            "Cache line size is not a power of two.\n"), 0);
   /* 256/8/2 = 16 sets, line 8 < 16 */
   CHECK("256,2,8", strcmp(cs_geometry_check(&(cs_geometry){256, 2, 8}),
                           "Cache line size is too small.\n"), 0);
   /* 64/64/1 = 1 set, but size == line */
   CHECK("64,1,64", strcmp(cs_geometry_check(&(cs_geometry){64, 1, 64}),
                           "Cache size <= line size.\n"), 0);
   /* assoc 4 > 128/64: 128 % 256 != 0, so the set-count message comes first
      (the "associativity > size/line" check cannot trigger before it) */
   CHECK("128,4,64", strcmp(cs_geometry_check(&(cs_geometry){128, 4, 64}), set_msg), 0);
   CHECK("line 0", strcmp(cs_geometry_check(&(cs_geometry){1024, 2, 0}),
                          "Cache line size is zero.\n"), 0);
   /* absurd values must not trap (INT_MIN / -1) */
   CHECK("INT_MIN,1,-1", cs_geometry_check(&(cs_geometry){-2147483647 - 1, 1, -1}) != 0, 1);
   CHECK("negative size", strcmp(cs_geometry_check(&(cs_geometry){-65536, 2, 64}), set_msg), 0);
   CHECK("assoc 0", strcmp(cs_geometry_check(&(cs_geometry){1024, 0, 64}),
                           "Cache associativity is zero.\n"), 0);
   end("geometry_check");
}

static void test_geometry_fixup(void)
{
   cs_geometry g;
   int changed;
   char buf[64];

   begin();
   /* 300 MiB = 314572800 B, 20-way: sets = 314572800/1280 = 245760, down
      to 131072; 245760/131072 = 1.875; 1.875*20 = 37.5, rounded 38;
      size = 64*38*131072 = 318767104. */
   g = (cs_geometry){ 314572800, 20, 64 };
   cs_geometry_fixup_host(&g, &changed);
   CHECK("300M size", g.size, 318767104);
   CHECK("300M assoc", g.assoc, 38);
   CHECK("300M line", g.line_size, 64);
   CHECK("300M changed", changed, 1);
   /* 12 MiB 16-way: 12288 sets -> 8192, assoc 16*1.5 = 24, size unchanged */
   g = (cs_geometry){ 12582912, 16, 64 };
   cs_geometry_fixup_host(&g, &changed);
   CHECK("12M size", g.size, 12582912);
   CHECK("12M assoc", g.assoc, 24);
   CHECK("12M changed", changed, 1);
   /* 40370176 B 11-way (a reference log shows "simulated LL cache:
      line_size 64 assoc 19 total_size 39,845,888"): 57344 sets -> 32768,
      1.75*11 = 19.25 -> 19; 64*19*32768 = 39845888 */
   g = (cs_geometry){ 40370176, 11, 64 };
   cs_geometry_fixup_host(&g, &changed);
   CHECK("40M size", g.size, 39845888);
   CHECK("40M assoc", g.assoc, 19);
   /* 5 MiB 48-way: 5242880/3072 = 1706 sets -> 1024; 1706/1024*48 =
      79.97 -> 80; 64*80*1024 = 5242880 */
   g = (cs_geometry){ 5242880, 48, 64 };
   cs_geometry_fixup_host(&g, &changed);
   CHECK("5M size", g.size, 5242880);
   CHECK("5M assoc", g.assoc, 80);
   /* power-of-two sets: untouched */
   g = (cs_geometry){ 262144, 8, 64 };
   cs_geometry_fixup_host(&g, &changed);
   CHECK("256K size", g.size, 262144);
   CHECK("256K assoc", g.assoc, 8);
   CHECK("256K changed", changed, 0);
   /* power-of-two sets but a size that is no multiple: 262244/512 = 512
      sets, size trimmed to 64*8*512 = 262144 */
   g = (cs_geometry){ 262244, 8, 64 };
   cs_geometry_fixup_host(&g, &changed);
   CHECK("trim size", g.size, 262144);
   CHECK("trim changed", changed, 1);
   /* defaults */
   {
      cs_geometry i1, d1, ll;
      cs_geometry_defaults(&i1, &d1, &ll);
      CHECK("def I1", i1.size == 65536 && i1.assoc == 2 && i1.line_size == 64, 1);
      CHECK("def D1", d1.size == 65536 && d1.assoc == 2 && d1.line_size == 64, 1);
      CHECK("def LL", ll.size == 262144 && ll.assoc == 8 && ll.line_size == 64, 1);
   }
   cs_geometry_desc(&(cs_geometry){65536, 2, 64}, buf, sizeof buf);
   CHECK("desc", strcmp(buf, "65536 B, 64 B, 2-way associative"), 0);
   cs_geometry_desc(&(cs_geometry){1024, 1, 64}, buf, sizeof buf);
   CHECK("desc dm", strcmp(buf, "1024 B, 64 B, direct-mapped"), 0);
   cs_geometry_desc(&(cs_geometry){65536, 2, 64}, buf, 6);
   CHECK("desc trunc", strcmp(buf, "65536"), 0);
   end("geometry_fixup_defaults_desc");
}

/* Sums of the L1 and LL miss bits of n reads at line starts. */
static void sweep(cs_sim *s, int from, int n, int *l1, int *ll)
{
   int k;
   *l1 = *ll = 0;
   for (k = from; k < from + n; k++) {
      unsigned r = cs_read(s, LINE(k), 4, 0);
      *l1 += r & 1;
      *ll += (r >> 1) & 1;
   }
}

static void test_sequential_sweep(void)
{
   cs_sim *s;
   int m1, m2;

   begin();
   /* 8 lines = the whole L1 (2 lines per set): cold pass misses everywhere,
      second pass hits everywhere. */
   s = mk(&L1, &LL4, 0, 0, 0);
   sweep(s, 0, 8, &m1, &m2);
   CHECK("8 cold L1", m1, 8);
   CHECK("8 cold LL", m2, 8);
   sweep(s, 0, 8, &m1, &m2);
   CHECK("8 warm L1", m1, 0);
   CHECK("8 warm LL", m2, 0);
   cs_delete(s);
   /* 16 lines: 4 per L1 set (2 ways) -> LRU thrashes, every access of the
      second pass misses L1; LL4 holds 2 per set of 4 ways -> all LL hits. */
   s = mk(&L1, &LL4, 0, 0, 0);
   sweep(s, 0, 16, &m1, &m2);
   CHECK("16 cold L1", m1, 16);
   CHECK("16 cold LL", m2, 16);
   sweep(s, 0, 16, &m1, &m2);
   CHECK("16 warm L1", m1, 16);
   CHECK("16 warm LL", m2, 0);
   /* instruction side is a separate L1: same sweep as fetches, cold in I1
      but warm in LL */
   {
      int k, i1 = 0, il = 0;
      for (k = 0; k < 16; k++) {
         unsigned r = cs_instr(s, LINE(k), 4, 0);
         i1 += r & 1;
         il += (r >> 1) & 1;
      }
      CHECK("I1 cold", i1, 16);
      CHECK("I via LL warm", il, 0);
   }
   cs_delete(s);
   end("sequential_sweep");
}

static void test_strides_conflicts(void)
{
   cs_sim *s = mk(&L1, &LL4, 0, 0, 0);
   int round, k, m1 = 0, m2 = 0;
   unsigned r;

   begin();
   /* Stride 256 B = 4 lines: lines 0, 4, 8 all in L1 set 0 (2 ways): one
      more than the associativity, so with LRU every access misses L1 from
      the second round on.  In LL4 they are in sets 0, 4, 0 -> fit. */
   for (round = 0; round < 5; round++)
      for (k = 0; k < 3; k++) {
         r = cs_read(s, LINE(4 * k), 8, 0);
         if (round > 0) {
            m1 += r & 1;
            m2 += (r >> 1) & 1;
         }
      }
   CHECK("3 in 2-way L1 misses", m1, 12);
   CHECK("3 in 2-way LL misses", m2, 0);
   cs_delete(s);
   /* Exactly the associativity: 2 lines in set 0 -> hits after round 1. */
   s = mk(&L1, &LL4, 0, 0, 0);
   m1 = 0;
   for (round = 0; round < 5; round++)
      for (k = 0; k < 2; k++) {
         r = cs_read(s, LINE(4 * k), 8, 0);
         if (round > 0)
            m1 += r & 1;
      }
   CHECK("2 in 2-way L1 misses", m1, 0);
   /* Stride 64 B over 4 lines: 4 different sets -> 4 misses then hits. */
   m1 = 0;
   for (round = 0; round < 3; round++)
      for (k = 100; k < 104; k++)
         m1 += cs_read(s, LINE(k), 1, 0) & 1;
   CHECK("stride 64", m1, 4);
   cs_delete(s);
   end("strides_conflicts");
}

static void test_lru_order(void)
{
   /* 4-way D1: 1024,4,64 -> 4 sets; A..E = lines 0,4,8,12,16 all set 0 */
   cs_geometry d4 = { 1024, 4, 64 };
   cs_sim *s = mk(&d4, &LL4, 0, 0, 0);
   enum { A = 0, B = 4, C = 8, D = 12, E = 16 };

   begin();
   CHECK("A", cs_read(s, LINE(A), 4, 0) & 1, 1);
   CHECK("B", cs_read(s, LINE(B), 4, 0) & 1, 1);
   CHECK("C", cs_read(s, LINE(C), 4, 0) & 1, 1);
   CHECK("D", cs_read(s, LINE(D), 4, 0) & 1, 1);   /* D C B A */
   CHECK("B hit", cs_read(s, LINE(B), 4, 0), 0);    /* B D C A */
   CHECK("A hit", cs_write(s, LINE(A), 4, 0), 0);   /* A B D C */
   CHECK("E miss", cs_read(s, LINE(E), 4, 0) & 1, 1); /* E A B D, C out */
   CHECK("D hit", cs_read(s, LINE(D), 4, 0), 0);    /* D E A B */
   CHECK("C miss", cs_read(s, LINE(C), 4, 0) & 1, 1); /* C D E A, B out */
   CHECK("B miss", cs_read(s, LINE(B), 4, 0) & 1, 1); /* B C D E, A out */
   CHECK("E hit", cs_read(s, LINE(E), 4, 0), 0);    /* E B C D */
   CHECK("A miss", cs_read(s, LINE(A), 4, 0) & 1, 1); /* A E B C, D out */
   CHECK("D miss", cs_read(s, LINE(D), 4, 0) & 1, 1);
   /* the tags themselves, MRU first: D A E B (line numbers, plain mode) */
   CHECK("tag0", s->d1.tags[0], 0x4000 + D);
   CHECK("tag1", s->d1.tags[1], 0x4000 + A);
   CHECK("tag2", s->d1.tags[2], 0x4000 + E);
   CHECK("tag3", s->d1.tags[3], 0x4000 + B);
   cs_delete(s);
   end("lru_order");
}

static void test_straddle(void)
{
   cs_sim *s = mk(&L1, &LL, 0, 0, 0);
   unsigned r;

   begin();
   /* 8 bytes at offset 60 of line 0: lines 0 and 1; cold: ONE access,
      a miss in L1 and LL */
   r = cs_read(s, LINE(0) + 60, 8, 0);
   CHECK("cold straddle", r, CS_L1_MISS | CS_LL_MISS);
   CHECK("line 0 in", cs_read(s, LINE(0), 4, 0), 0);
   CHECK("line 1 in", cs_read(s, LINE(1), 4, 0), 0);
   /* L1 set 0 now [0]; add line 4 -> [4, 0]; straddle touches 0 -> [0, 4];
      then line 8 evicts the LRU, which must be 4, not 0 */
   cs_read(s, LINE(4), 4, 0);
   CHECK("both hit", cs_read(s, LINE(0) + 62, 4, 0), 0);
   cs_read(s, LINE(8), 4, 0);
   CHECK("0 kept MRU by straddle", cs_read(s, LINE(0), 4, 0), 0);
   CHECK("4 evicted", cs_read(s, LINE(4), 4, 0) & 1, 1);
   cs_delete(s);

   /* Second line misses L1 only: without cacheuse the whole access goes
      to LL, so LL sees BOTH lines (line n0 moves to MRU in LL set 0). */
   s = mk(&L1, &LL, 0, 0, 0);
   cs_read(s, LINE(0), 4, 0);          /* LL set 0: [0]     D1 set 0: [0]   */
   cs_read(s, LINE(8), 4, 0);          /* LL set 0: [8, 0]  D1 set 0: [8, 0] */
   r = cs_read(s, LINE(0) + 63, 2, 0); /* D1: 0 hits, 1 misses */
   CHECK("half miss", r, CS_L1_MISS | CS_LL_MISS);
   CHECK("LL MRU is line 0", s->ll.tags[0], 0x4000);
   CHECK("LL 2nd is line 8", s->ll.tags[1], 0x4008);
   cs_delete(s);

   /* Same with cacheuse: only the missing line goes to LL: [8, 0] stays. */
   s = mk(&L1, &LL, 0, 0, 1);
   cs_read(s, LINE(0), 4, 0);
   cs_read(s, LINE(8), 4, 0);
   r = cs_read(s, LINE(0) + 63, 2, 0);
   CHECK("use half miss", r, CS_L1_MISS | CS_LL_MISS);
   CHECK("use LL MRU still 8", s->ll.tags[0] & s->ll.tag_mask, (uint64_t)LINE(8));
   cs_delete(s);

   /* Instruction fetch straddle, 15 bytes at offset 50 */
   s = mk(&L1, &LL, 0, 0, 0);
   CHECK("instr straddle", cs_instr(s, LINE(3) + 50, 15, 0), CS_L1_MISS | CS_LL_MISS);
   CHECK("instr line 4", cs_instr(s, LINE(4), 1, 0), 0);
   cs_delete(s);
   end("straddle");
}

/* The use mask of the only D1 line with a non-zero count (-1 if none or
   several). */
static long only_mask(cs_sim *s)
{
   unsigned i, n = (unsigned)(s->d1.sets * s->d1.assoc);
   long m = -1;
   for (i = 0; i < n; i++)
      if (cs__use(&s->d1, i)->count) {
         if (m != -1)
            return -1;
         m = cs__use(&s->d1, i)->mask;
      }
   return m;
}

/* A line's count wraps alone: the MRU hit's one 64-bit add (cs__use_add)
   must not carry into the mask, nor the mask's bits into the count. */
static void test_use_count_wraps_alone(void)
{
   cs_geometry g = { 64 * 8, 2, 64 };
   cs_owner o = own(1);
   cs_sim *s = mk(&g, &LL4, 0, 0, 1);
   unsigned i, n = (unsigned)(s->d1.sets * s->d1.assoc);

   begin();
   cs_read(s, BASE + 2, 2, &o);                /* bytes 2-3: bit 1 */
   for (i = 0; i < n; i++)
      if (cs__use(&s->d1, i)->count)
         cs__use(&s->d1, i)->count = 0xffffffffu;
   CHECK("hit", cs_read(s, BASE + 62, 2, &o), 0);   /* bytes 62-63: bit 31 */
   CHECK("mask", only_mask(s), -1);            /* the count is 0 now */
   for (i = 0; i < n; i++)
      if (cs__use(&s->d1, i)->mask) {
         CHECK("count wrapped", cs__use(&s->d1, i)->count, 0);
         CHECK("mask kept", cs__use(&s->d1, i)->mask, 0x80000002u);
      }
   cs_read(s, BASE + 4, 2, &o);                /* bytes 4-5: bit 2 */
   for (i = 0; i < n; i++)
      if (cs__use(&s->d1, i)->mask) {
         CHECK("count 1", cs__use(&s->d1, i)->count, 1);
         CHECK("mask grows", cs__use(&s->d1, i)->mask, 0x80000006u);
      }
   cs_delete(s);
   end("use_count_wraps_alone");
}

/* Expected bits by the rule "line_size/32 bytes per bit, or 32/line_size
   bits per byte", byte by byte. */
static uint32_t want_mask(int line, int first, int last)
{
   uint32_t m = 0;
   int b, k;
   for (b = first; b <= last; b++) {
      if (line >= 32) {
         m |= 1u << (b / (line / 32));
      } else {
         for (k = 0; k < 32 / line; k++)
            m |= 1u << (b * (32 / line) + k);
      }
   }
   return m;
}

static void test_use_masks(void)
{
   static const int lines[] = { 16, 32, 64, 128 };
   unsigned li;
   int off, size;

   begin();
   for (li = 0; li < sizeof lines / sizeof lines[0]; li++) {
      int ls = lines[li];
      cs_geometry g = { ls * 8, 2, ls };
      for (off = 0; off < ls; off++)
         for (size = 1; off + size <= ls && size <= 16; size++) {
            cs_owner o = own(1);
            cs_sim *s = mk(&g, &LL4, 0, 0, 1);
            cs_read(s, BASE + (uint64_t)off, (unsigned)size, &o);
            if (only_mask(s) != (long)want_mask(ls, off, off + size - 1)) {
               CHECK("mask", only_mask(s), want_mask(ls, off, off + size - 1));
               printf("  line %d off %d size %d\n", ls, off, size);
            }
            cs_delete(s);
         }
   }
   /* hand-checked samples, 64-byte lines (2 bytes per bit) */
   CHECK("64: 0+1", want_mask(64, 0, 0), 0x1);
   CHECK("64: 1+2", want_mask(64, 1, 2), 0x3);       /* bytes 1,2: bits 0,1 */
   CHECK("64: 60+4", want_mask(64, 60, 63), 0xc0000000u);
   CHECK("16: 3+1", want_mask(16, 3, 3), 0xc0);      /* bits 6,7 */
   CHECK("128: 4..11", want_mask(128, 4, 11), 0x6); /* bits 1,2 */
   {
      /* straddle: offset 60, 8 bytes -> first line bits 30,31; second line
         bytes 0..3 -> bits 0,1 */
      cs_owner o = own(1);
      cs_sim *s = mk(&L1, &LL4, 0, 0, 1);
      unsigned i, n = 8, seen = 0;
      cs_read(s, LINE(0) + 60, 8, &o);
      for (i = 0; i < n; i++) {
         if (cs__use(&s->d1, i)->count == 1 && cs__use(&s->d1, i)->mask == 0xc0000000u)
            seen |= 1;
         if (cs__use(&s->d1, i)->count == 1 && cs__use(&s->d1, i)->mask == 0x3u)
            seen |= 2;
      }
      CHECK("straddle masks", seen, 3);
      /* hits accumulate: bytes 8..9 of line 0 -> bit 4 */
      cs_read(s, LINE(0) + 8, 2, &o);
      seen = 0;
      for (i = 0; i < n; i++)
         if (cs__use(&s->d1, i)->count == 2 && cs__use(&s->d1, i)->mask == 0xc0000010u)
            seen = 1;
      CHECK("hit accumulates", seen, 1);
      cs_delete(s);
   }
   end("use_masks");
}

static void test_accost_sploss(void)
{
   cs_sim *s = mk(&L1, &LL, 0, 0, 1);
   cs_owner a = own(10), a2 = own(11), b = own(20), c = own(30), d = own(40);
   int i;

   begin();
   /* Line n0 (D1 set 0, LL set 0) read 3 times, 4 bytes at 0, 8, 16:
      bits {0,1}, {4,5}, {8,9} -> 6 bits; count 3.  Only the first access's
      owner (a) owns the line. */
   CHECK("load", cs_read(s, LINE(0), 4, &a), CS_L1_MISS | CS_LL_MISS);
   CHECK("hit1", cs_read(s, LINE(0) + 8, 4, &a2), 0);
   CHECK("hit2", cs_read(s, LINE(0) + 16, 4, &a2), 0);
   /* loads so far: D1 (a), LL (a) */
   CHECK("loads", n_load, 2);
   CHECK("load L1 owner", ev[0].level == 1 && ev[0].owner == 10, 1);
   CHECK("load LL owner", ev[1].level == 2 && ev[1].owner == 10, 1);
   /* line n0+4: D1 set 0 (LL set 4), 4 bytes at offset 0 -> bits 0,1 */
   cs_read(s, LINE(4), 4, &b);
   /* line n0+8: D1 set 0, LL set 0 -> D1 evicts n0 (LRU):
      AcCost1 = 1000/3 = 333, SpLoss1 = (32-6)*64/32 = 52; merged into LL
      line n0 (count 0+3, 6 bits).  LL set 0 [n0, init] -> init evicted
      (no owner, no report); LL set 0 = [n0+8, n0]. */
   reset_events();
   cs_read(s, LINE(8), 64, &c);    /* all 64 bytes: full mask */
   i = find_evict(1, 10);
   CHECK("evict n0 L1 reported", i >= 0, 1);
   if (i >= 0) {
      CHECK("AcCost1 k=3", ev[i].ac, 333);
      CHECK("SpLoss1 b=12", ev[i].sp, 52);
   }
   CHECK("no LL evict yet", find_evict(2, 10), -1);
   /* line n0+16: D1 set 0 evicts n0+4 (count 1, 2 bits: 1000, 60);
      LL set 0 [n0+8, n0] evicts n0: count 3, 6 bits -> 333, 52 */
   reset_events();
   cs_read(s, LINE(16), 1, &d);
   i = find_evict(1, 20);
   CHECK("n0+4 reported", i >= 0, 1);
   if (i >= 0) {
      CHECK("AcCost1 k=1", ev[i].ac, 1000);
      CHECK("SpLoss1 b=4", ev[i].sp, 60);
   }
   i = find_evict(2, 10);
   CHECK("n0 LL reported", i >= 0, 1);
   if (i >= 0) {
      CHECK("AcCost2", ev[i].ac, 333);
      CHECK("SpLoss2", ev[i].sp, 52);
   }
   /* line n0+24 (D1 set 0, LL set 0): D1 evicts n0+8 (1 access, 64 bytes:
      1000, 0), merged into LL n0+8; LL [n0+16, n0+8] evicts n0+8: 1000, 0 */
   reset_events();
   for (i = 0; i < 6; i++)          /* 7 accesses of 1 byte at offset 0 */
      cs_read(s, LINE(24), 1, &a);
   cs_read(s, LINE(24), 1, &a);
   i = find_evict(1, 30);
   CHECK("full line L1", i >= 0 && ev[i].ac == 1000 && ev[i].sp == 0, 1);
   i = find_evict(2, 30);
   CHECK("full line LL", i >= 0 && ev[i].ac == 1000 && ev[i].sp == 0, 1);
   /* flush: D1 n0+24 has count 7, 1 bit -> 1000/7 = 142, (31*64)/32 = 62;
      D1 n0+16 count 1, 1 bit -> 1000, 62 */
   reset_events();
   cs_flush(s);
   i = find_evict(1, 10);
   CHECK("k=7", i >= 0 && ev[i].ac == 142 && ev[i].sp == 62, 1);
   i = find_evict(1, 40);
   CHECK("1 byte", i >= 0 && ev[i].ac == 1000 && ev[i].sp == 62, 1);
   cs_delete(s);

   /* 16-byte lines: 2 bits per byte; 1 byte used -> 30 bits unused ->
      30*16/32 = 15 bytes lost; 128-byte lines: 4 bytes per bit, 1 byte ->
      31 bits unused -> 31*128/32 = 124 */
   {
      cs_geometry g16 = { 128, 2, 16 }, g128 = { 1024, 2, 128 };
      cs_geometry ll16 = { 1024, 2, 16 }, ll128 = { 4096, 2, 128 };
      cs_options o = { 0, 0, 1, 0 };
      s = cs_new(&g16, &g16, &ll16, o, &hooks);
      reset_events();
      cs_read(s, BASE + 5, 1, &a);
      cs_flush(s);
      i = find_evict(1, 10);
      CHECK("16B sploss", i >= 0 && ev[i].ac == 1000 && ev[i].sp == 15, 1);
      cs_delete(s);
      s = cs_new(&g128, &g128, &ll128, o, &hooks);
      reset_events();
      cs_read(s, BASE + 5, 1, &a);
      cs_flush(s);
      i = find_evict(1, 10);
      CHECK("128B sploss", i >= 0 && ev[i].ac == 1000 && ev[i].sp == 124, 1);
      cs_delete(s);
   }
   end("accost_sploss");
}

static void test_flush(void)
{
   cs_sim *s = mk(&L1, &LL, 0, 0, 1);
   cs_owner di = own(1), dd = own(2), x = own(3);
   int i, ei, ed, el, ell;

   begin();
   /* an instruction line (owner 1) fetched once, 4 bytes: I1 count 1;
      a data line (owner 2) read twice (bytes 0..3 and 32..35: bits 0,1,16,17):
      D1 count 2 */
   cs_instr(s, LINE(1), 4, &di);
   cs_read(s, LINE(2), 4, &dd);
   cs_read(s, LINE(2) + 32, 4, &x);
   reset_events();
   cs_flush(s);
   /* I1: 1000, (32-2)*2 = 60; D1: 1000/2 = 500, (32-4)*2 = 56; then LL:
      each LL line got its L1 copy merged: same values. */
   ei = find_evict(1, 1);
   ed = find_evict(1, 2);
   CHECK("I1 flushed", ei >= 0 && ev[ei].ac == 1000 && ev[ei].sp == 60, 1);
   CHECK("D1 flushed", ed >= 0 && ev[ed].ac == 500 && ev[ed].sp == 56, 1);
   el = find_evict(2, 1);
   ell = find_evict(2, 2);
   CHECK("LL(I) flushed", el >= 0 && ev[el].ac == 1000 && ev[el].sp == 60, 1);
   CHECK("LL(D) flushed", ell >= 0 && ev[ell].ac == 500 && ev[ell].sp == 56, 1);
   CHECK("order I1 < D1 < LL", ei < ed && ed < el && ed < ell, 1);
   CHECK("4 evictions", n_evict, 4);
   /* empty afterwards: a second flush reports nothing, accesses miss */
   reset_events();
   cs_flush(s);
   CHECK("2nd flush", n_evict, 0);
   CHECK("empty", cs_read(s, LINE(2), 4, &dd), CS_L1_MISS | CS_LL_MISS);
   cs_delete(s);

   /* collection off: every owner still gets on_evict, with 0, 0, and no
      merge (LL line of the data stays at count 0) */
   s = mk(&L1, &LL, 0, 0, 1);
   cs_read(s, LINE(2), 4, &dd);
   cs_set_collect(s, 0);
   reset_events();
   cs_flush(s);
   CHECK("off: 2 evictions", n_evict, 2);
   for (i = 0; i < n_ev; i++)
      CHECK("off: zero", ev[i].ac + ev[i].sp, 0);
   cs_delete(s);

   /* cs_clear: owners dropped with 0, 0 even while collecting */
   s = mk(&L1, &LL, 0, 0, 1);
   cs_read(s, LINE(2), 4, &dd);
   cs_instr(s, LINE(3), 4, &di);
   reset_events();
   cs_clear(s);
   CHECK("clear: 4 evictions", n_evict, 4);
   for (i = 0; i < n_ev; i++)
      CHECK("clear: zero", ev[i].ac + ev[i].sp, 0);
   CHECK("clear: empty", cs_read(s, LINE(2), 4, &dd), CS_L1_MISS | CS_LL_MISS);
   cs_delete(s);
   end("final_flush_and_clear");
}

/* The reference merges an evicted L1 line into the LL SLOT it was linked
   to when loaded, even if LL has refilled that slot with another line. */
static void test_merge_to_stale_slot(void)
{
   cs_sim *s = mk(&L1, &LL, 0, 0, 1);
   cs_owner a = own(1), i8 = own(2), i16 = own(3), o = own(4);
   int e;

   begin();
   /* LL set 0 starts with ways 0,1 (slots 0,1), way 0 MRU.
      read n0 twice: D1 count 2; LL miss takes LRU slot 1 -> [n0(s1), s0] */
   cs_read(s, LINE(0), 4, &a);
   cs_read(s, LINE(0) + 4, 4, &a);
   /* fetch n0+8, n0+16 (I1 is separate; both LL set 0):
      n0+8 -> slot 0: [n0+8(s0), n0(s1)]; n0+16 evicts n0 from slot 1 */
   cs_instr(s, LINE(8), 4, &i8);
   cs_instr(s, LINE(16), 4, &i16);
   /* evict n0 from D1 (set 0) with n0+4 and n0+12 (LL set 4): its count 2
      is merged into slot 1, which now holds n0+16 */
   cs_read(s, LINE(4), 4, &o);
   cs_read(s, LINE(12), 4, &o);
   reset_events();
   cs_flush(s);
   /* LL n0+16 (owner 3): its own I1 copy merges count 1 at flush, plus the
      stale merge of 2 -> count 3 -> 1000/3 = 333 */
   e = find_evict(2, 3);
   CHECK("stale merge", e >= 0 ? (long)ev[e].ac : -1, 333);
   cs_delete(s);
   end("merge_to_stale_slot");
}

/* A cacheuse simulator (L1, LL) in which owner a has read line n0 twice
   (bytes 0-3, 4-7: bits 0-3): D1 count 2; LL set 0's LRU slot 1 holds it. */
static cs_sim *n0_read_twice(const cs_owner *a)
{
   cs_sim *s = mk(&L1, &LL, 0, 0, 1);
   cs_read(s, LINE(0), 4, a);
   cs_read(s, LINE(0) + 4, 4, a);
   return s;
}

/* An L1 miss whose L1 victim links to the very LL line the miss then
   evicts: the victim's use must reach that LL line before LL reports it
   (the reference merges, then looks LL up), and the four hooks come in
   the reference's order: L1 eviction, L1 load, LL eviction, LL load. */
static void test_merge_into_ll_victim(void)
{
   cs_owner a = own(1), b = own(2), c = own(3);
   cs_sim *s;
   int e;

   begin();
   s = n0_read_twice(&a);            /* LL [n0, -] */
   /* n0+8 (D1 set 0, LL set 0): D1 [n8, n0], LL [n8, n0] */
   cs_read(s, LINE(8), 4, &b);
   /* n0+16 (D1 set 0, LL set 0): D1 evicts n0 (count 2: AcCost1 500,
      SpLoss1 (32-4)*64/32 = 56) and merges count 2, bits 0-3 into LL's
      n0, which this same miss evicts from LL: 500, 56 again.  Without
      the merge first LL's n0 would be unused: 0, 0. */
   reset_events();
   cs_read(s, LINE(16), 4, &c);
   CHECK("events", n_ev, 4);
   CHECK("1: L1 eviction of a", ev[0].kind == 'E' && ev[0].level == 1
                                && ev[0].owner == 1, 1);
   CHECK("2: L1 load of c", ev[1].kind == 'L' && ev[1].level == 1
                            && ev[1].owner == 3, 1);
   CHECK("3: LL eviction of a", ev[2].kind == 'E' && ev[2].level == 2
                                && ev[2].owner == 1, 1);
   CHECK("4: LL load of c", ev[3].kind == 'L' && ev[3].level == 2
                            && ev[3].owner == 3, 1);
   e = find_evict(2, 1);
   CHECK("AcCost2 of the merged count 2", e >= 0 ? (long)ev[e].ac : -1, 500);
   CHECK("SpLoss2 of the merged 4 bits", e >= 0 ? (long)ev[e].sp : -1, 56);
   cs_delete(s);
   end("merge_into_ll_victim");
}

static void test_write_back(void)
{
   cs_sim *s = mk(&L1, &LL, 1, 0, 0);
   unsigned r;

   begin();
   /* write n0: cold -> L1+LL miss, LL line dirty */
   CHECK("cold write", cs_write(s, LINE(0), 4, 0), CS_L1_MISS | CS_LL_MISS);
   /* n0+8, n0+16 are in LL set 0 (2-way): the second evicts dirty n0 */
   CHECK("read n0+8", cs_read(s, LINE(8), 4, 0), CS_L1_MISS | CS_LL_MISS);
   r = cs_read(s, LINE(16), 4, 0);
   CHECK("dirty evict", r, CS_L1_MISS | CS_LL_MISS | CS_LL_DIRTY_MISS);
   /* clean evictions are not dirty: n0+24 evicts n0+8 (clean) */
   CHECK("clean evict", cs_read(s, LINE(24), 4, 0), CS_L1_MISS | CS_LL_MISS);
   cs_delete(s);

   /* A D1 write HIT writes through: makes the LL line dirty and moves it
      to MRU in LL.  P = n0+1, Q = n0+9 (D1 set 1: [Q, P]; LL set 1: [Q, P]) */
   s = mk(&L1, &LL, 1, 0, 0);
   cs_read(s, LINE(1), 4, 0);
   cs_read(s, LINE(9), 4, 0);
   CHECK("write hit", cs_write(s, LINE(1), 4, 0), 0); /* LL: [P*, Q] */
   /* R = n0+17: LL evicts LRU = Q (clean) -- not P, thanks to the write */
   CHECK("Q evicted clean", cs_read(s, LINE(17), 4, 0), CS_L1_MISS | CS_LL_MISS);
   /* S = n0+25: LL [R, P*] evicts P, dirty from the write-through */
   CHECK("P evicted dirty", cs_read(s, LINE(25), 4, 0),
         CS_L1_MISS | CS_LL_MISS | CS_LL_DIRTY_MISS);
   /* instruction fetches can also evict a dirty line (ILdmr): write T =
      n0+33 (LL set 1 [T*, S]), fetch n0+41, n0+49 -> second evicts T */
   cs_write(s, LINE(33), 4, 0);
   cs_instr(s, LINE(41), 4, 0);
   CHECK("ILdmr", cs_instr(s, LINE(49), 4, 0),
         CS_L1_MISS | CS_LL_MISS | CS_LL_DIRTY_MISS);
   cs_delete(s);

   end("write_back");
}

static void test_prefetch(void)
{
   /* LL4 2048 B: 8 sets x 4 ways, big enough to keep the prefetched lines.
      Page-aligned base: BASE is 0x100000, stream (BASE>>12)%8 = 0. */
   cs_sim *s = mk(&L1, &LL4, 0, 1, 0);
   uint64_t up, down;

   begin();
   /* reads of lines 0,1,2,3 (all L1 misses): detector starts at line 0
      (number 0, not adjacent to 0x4000): run 0; line 1: run 1; line 2:
      run 2 -> prefetch line 2+5 = 7; line 3: run 3 -> prefetch line 8 */
   cs_read(s, LINE(0), 4, 0);
   cs_read(s, LINE(1), 4, 0);
   CHECK("no prefetch at run 1", cs_prefetches(s), 0);
   cs_read(s, LINE(2), 4, 0);
   CHECK("prefetch at run 2", cs_prefetches(s), 1);
   cs_read(s, LINE(3), 4, 0);
   CHECK("prefetch at run 3", cs_prefetches(s), 2);
   /* line 7 and 8 are in LL now: L1 miss, LL hit */
   CHECK("line 7 prefetched", cs_read(s, LINE(7), 4, 0), CS_L1_MISS);
   CHECK("line 8 prefetched", cs_read(s, LINE(8), 4, 0), CS_L1_MISS);
   /* the jump 3 -> 7 reset the run; 7 -> 8 is run 1 -> no prefetch */
   CHECK("run reset", cs_prefetches(s), 2);
   CHECK("line 9 not prefetched", cs_read(s, LINE(9), 4, 0) & CS_LL_MISS,
         CS_LL_MISS);
   /* the 9 read was the run's 2nd step -> prefetch up (line 14) */
   cs_prefetch_counts(s, &up, &down);
   CHECK("up", up, 3);
   CHECK("down", down, 0);
   /* L1 hits do not drive the detector */
   cs_read(s, LINE(9), 4, 0);
   cs_read(s, LINE(9), 4, 0);
   CHECK("hits ignored", cs_prefetches(s), 3);
   cs_delete(s);

   /* downwards, in another page (stream 1): lines 0x4040+10, +9, +8 ->
      runs 0, -1, -2 -> one prefetch of line +3 */
   s = mk(&L1, &LL4, 0, 1, 0);
   cs_read(s, LINE(64 + 10), 4, 0);
   cs_read(s, LINE(64 + 9), 4, 0);
   cs_read(s, LINE(64 + 8), 4, 0);
   cs_prefetch_counts(s, &up, &down);
   CHECK("down run", down, 1);
   CHECK("down line prefetched", cs_read(s, LINE(64 + 3), 4, 0), CS_L1_MISS);
   cs_delete(s);

   /* Writes.  Warm lines 2,1,0 by descending reads (runs 0,-1,-2 ->
      1 down prefetch).  Then write 0,1,2 (D1 hits) and 3 (D1 miss).
      - wb: the detector runs BEFORE the D1 lookup, also on hits:
        0 = last (skip); 1: run -2 broken -> 0; 2: run 1; 3: run 2 -> up.
      - no wb: only the miss on 3 reaches it: 0 -> 3 not adjacent, run -2
        broken -> 0, no prefetch. */
   {
      int wb;
      for (wb = 0; wb <= 1; wb++) {
         s = mk(&L1, &LL4, wb, 1, 0);
         cs_read(s, LINE(2), 4, 0);
         cs_read(s, LINE(1), 4, 0);
         cs_read(s, LINE(0), 4, 0);
         cs_write(s, LINE(0), 4, 0);
         cs_write(s, LINE(1), 4, 0);
         cs_write(s, LINE(2), 4, 0);
         cs_write(s, LINE(3), 4, 0);
         cs_prefetch_counts(s, &up, &down);
         CHECK(wb ? "wb write down" : "write down", down, 1);
         CHECK(wb ? "wb write up" : "write up", up, wb ? 1 : 0);
         cs_delete(s);
      }
   }
   /* instruction fetches drive the same detectors */
   s = mk(&L1, &LL4, 0, 1, 0);
   cs_instr(s, LINE(0), 4, 0);
   cs_instr(s, LINE(1), 4, 0);
   cs_instr(s, LINE(2), 4, 0);
   CHECK("instr prefetch", cs_prefetches(s), 1);
   /* cs_clear resets the detectors but not the counts */
   cs_clear(s);
   cs_instr(s, LINE(3), 4, 0);
   CHECK("after clear", cs_prefetches(s), 1);
   cs_delete(s);
   end("prefetch");
}

/* Our extension: cacheuse together with wb and hwpref. */
static void test_use_with_wb_hwpref(void)
{
   cs_sim *s = mk(&L1, &LL, 1, 0, 1);
   cs_owner a = own(1), b = own(2);
   int i;

   begin();
   /* same scenario as write_back: dirty eviction reported */
   cs_write(s, LINE(0), 4, &a);
   cs_read(s, LINE(8), 4, &b);
   CHECK("use+wb dirty", cs_read(s, LINE(16), 4, &b),
         CS_L1_MISS | CS_LL_MISS | CS_LL_DIRTY_MISS);
   cs_delete(s);
   /* write hit writes through (LRU + dirty) as in write_back */
   s = mk(&L1, &LL, 1, 0, 1);
   cs_read(s, LINE(1), 4, &a);
   cs_read(s, LINE(9), 4, &a);
   CHECK("use+wb write hit", cs_write(s, LINE(1), 4, &a), 0);
   CHECK("use+wb Q clean", cs_read(s, LINE(17), 4, &a), CS_L1_MISS | CS_LL_MISS);
   CHECK("use+wb P dirty", cs_read(s, LINE(25), 4, &a),
         CS_L1_MISS | CS_LL_MISS | CS_LL_DIRTY_MISS);
   cs_delete(s);
   /* hwpref: a prefetched LL line is loaded with count 0, owned by the
      access that triggered it; it reports 0, 0 if never used */
   s = mk(&L1, &LL4, 0, 1, 1);
   cs_read(s, LINE(0), 4, &a);
   cs_read(s, LINE(1), 4, &a);
   reset_events();
   cs_read(s, LINE(2), 4, &b);          /* run 2 -> prefetch line 7 */
   /* loads: D1 line 2 (b), prefetched LL line 7 (b), LL line 2 (b) */
   CHECK("pf loads", n_load, 3);
   CHECK("pf hit in LL", cs_read(s, LINE(7), 4, &a), CS_L1_MISS);
   reset_events();
   cs_flush(s);
   /* LL line 7 got D1 line 7's count 1 merged at flush (owner b) */
   i = find_evict(2, 2);
   CHECK("pf line reported", i >= 0, 1);
   CHECK("loads == evictions", n_evict, 8); /* D1: 0,1,2,7; LL: 0,1,7,2 */
   cs_delete(s);
   end("cacheuse_with_wb_hwpref");
}

/* ---- no false hits: item 5 of issue 14 ---------------------------------- */

/* The four ways of running the same model: plain, write-back, cacheuse,
   write-back + cacheuse.  None may change an I1/D1/LL miss in the cases
   below (the reference's write-back and cacheuse tags start at 0 and are
   masked to 32 bits, so there they lose misses). */
static const char *const mode_name[4] = { "plain", "wb", "use", "wb+use" };

static cs_sim *mk_mode(const cs_geometry *l1, const cs_geometry *ll, int m)
{
   return mk(l1, ll, m & 1, 0, (m >> 1) & 1);
}

static void check_mode(const char *what, int m, long got, long want)
{
   char label[96];
   snprintf(label, sizeof label, "%s (%s)", what, mode_name[m]);
   CHECK(label, got, want);
}

/* L1 512,2,64 has tag_shift 8, LL 1024,2,64 tag_shift 9: every address
   below 512 was "in" the reference's empty write-back LL and below 256 in
   its empty cacheuse L1.  Empty caches: any first access misses both
   levels; the second hits. */
static void low_lines(int m)
{
   cs_sim *s = mk_mode(&L1, &LL, m);
   cs_owner o = own(1);

   check_mode("line 1 cold", m, cs_read(s, 0x40, 4, &o), CS_L1_MISS | CS_LL_MISS);
   check_mode("line 1 warm", m, cs_read(s, 0x44, 4, &o), 0);
   check_mode("fetch line 7 cold", m, cs_instr(s, 0x1c0, 4, &o),
              CS_L1_MISS | CS_LL_MISS);
   /* line 7 is in LL now: a read misses D1 only */
   check_mode("read line 7", m, cs_read(s, 0x1c0, 4, &o), CS_L1_MISS);
   check_mode("write line 0 cold", m, cs_write(s, 0, 8, &o),
              CS_L1_MISS | CS_LL_MISS);
   check_mode("write line 0 warm", m, cs_write(s, 0, 8, &o), 0);
   cs_delete(s);
}

/* Lines 4 GiB apart are different lines: both miss; D1 set 0 (2 ways)
   then holds both, LL set 0 (2 ways) too. */
static void lines_4g_apart(int m)
{
   cs_sim *s = mk_mode(&L1, &LL, m);
   cs_owner o = own(1);

   cs_read(s, LINE(0), 4, &o);
   check_mode("+4 GiB misses", m, cs_read(s, LINE(0) + (1ull << 32), 4, &o),
              CS_L1_MISS | CS_LL_MISS);
   check_mode("+1 TiB misses", m, cs_read(s, LINE(0) + (1ull << 40), 4, &o),
              CS_L1_MISS | CS_LL_MISS);
   /* D1 set 0: [+1T, +4G], LL set 0: [+1T, +4G]: line 0 gone from both */
   check_mode("line 0 evicted", m, cs_read(s, LINE(0), 4, &o),
              CS_L1_MISS | CS_LL_MISS);
   check_mode("+1 TiB kept", m, cs_read(s, LINE(0) + (1ull << 40), 4, &o), 0);
   cs_delete(s);
}

/* A single set (fully associative, 4 ways): an access crossing a line
   boundary still brings in both lines. */
static void straddle_one_set(int m)
{
   static const cs_geometry fa_l1 = { 256, 4, 64 }, fa_ll = { 512, 8, 64 };
   cs_sim *s = mk_mode(&fa_l1, &fa_ll, m);
   cs_owner o = own(1);

   check_mode("straddle cold", m, cs_read(s, LINE(0) + 60, 8, &o),
              CS_L1_MISS | CS_LL_MISS);
   check_mode("2nd line in L1", m, cs_read(s, LINE(1), 4, &o), 0);
   check_mode("2nd line in LL", m, cs_instr(s, LINE(1), 4, &o), CS_L1_MISS);
   cs_delete(s);
}

/* What Valgrind detects as the LL of an AMD EPYC host: 536870912,2,64,
   2^22 sets, tag_shift 28 (the reference's empty write-back / cacheuse
   LL "holds" everything below 256 MiB).  L1 32768,8,64: 64 sets.
   Two sweeps over 4096 lines (256 KiB, 8x L1): every access of both
   sweeps misses L1 (LRU, 64 lines per L1 set); LL misses only in the
   first sweep (4096 lines spread over 4096 sets). */
static const cs_geometry L1_32K = { 32768, 8, 64 }, LL_EPYC = { 536870912, 2, 64 };

static void big_ll_sweeps(int m)
{
   cs_sim *s = mk_mode(&L1_32K, &LL_EPYC, m);
   cs_owner o = own(1);
   int pass, k, l1 = 0, ll = 0;

   for (pass = 0; pass < 2; pass++)
      for (k = 0; k < 4096; k++) {
         unsigned r = cs_read(s, LINE(k), 8, &o);
         l1 += r & 1;
         ll += (r >> 1) & 1;
      }
   check_mode("sweeps L1 misses", m, l1, 8192);
   check_mode("sweeps LL misses", m, ll, 4096);
   cs_delete(s);
}

/* A mixed workload in four regions like a process's (binary, libraries,
   a copy of the binary's region 4 GiB up, the stack), under the EPYC LL.
   The regions' LL sets: 0x4000.., 0x100000.., 0x4000.. again (+4 GiB),
   0x3bfc00.. -- at most 2 lines per 2-way set, so LL never evicts and
   its misses are exactly the accesses touching a line for the first time
   (counted here with a hash set, independently of the model).  Every access's result must be
   the same in all four modes. */
#define MIX_N 30000
static const uint64_t mix_base[4] = { 0x100000ull, 0x4000000ull,
                                      0x100100000ull, 0x1ffeff0000ull };
static uint64_t mix_addr[MIX_N];
static unsigned char mix_size[MIX_N], mix_kind[MIX_N];
static unsigned mix_res[4][MIX_N];

static void mix_make(void)
{
   unsigned x = 2024, i;
   for (i = 0; i < MIX_N; i++) {
      x = x * 1103515245u + 12345u;
      mix_addr[i] = mix_base[(x >> 4) & 3] + (x >> 9) % (256 * 64);
      mix_size[i] = (unsigned char)(1 << ((x >> 6) & 3));   /* 1,2,4,8 */
      mix_kind[i] = (unsigned char)((x >> 28) % 3);         /* I, R, W */
   }
}

/* Whether line was seen before; marks it seen (open addressing). */
static int seen_before(uint64_t line)
{
   static uint64_t table[1 << 16];     /* holds line + 1; 0 = empty */
   unsigned h = (unsigned)(line * 0x9e3779b97f4a7c15ull >> 48);
   while (table[h] && table[h] != line + 1)
      h = (h + 1) & 0xffff;
   if (table[h])
      return 1;
   table[h] = line + 1;
   return 0;
}

/* Accesses touching a line no earlier access touched: with an LL that
   never evicts, exactly the accesses that miss LL (one access straddling
   two new lines is one miss). */
static long first_touches(void)
{
   long n = 0;
   int i;
   for (i = 0; i < MIX_N; i++) {
      uint64_t first = mix_addr[i] >> 6;
      uint64_t last = (mix_addr[i] + mix_size[i] - 1) >> 6;
      int new1 = !seen_before(first);
      int new2 = last != first && !seen_before(last);
      n += new1 || new2;
   }
   return n;
}

static void big_ll_mix(int m, long want_ll)
{
   cs_sim *s = mk_mode(&L1_32K, &LL_EPYC, m);
   cs_owner o = own(1);
   long ll = 0, differ = 0;
   int i;

   for (i = 0; i < MIX_N; i++) {
      unsigned r = mix_kind[i] == 0 ? cs_instr(s, mix_addr[i], mix_size[i], &o)
                 : mix_kind[i] == 1 ? cs_read(s, mix_addr[i], mix_size[i], &o)
                 : cs_write(s, mix_addr[i], mix_size[i], &o);
      mix_res[m][i] = r;
      ll += (r >> 1) & 1;
      differ += m > 0 && r != mix_res[0][i];
   }
   check_mode("mix LL misses = first touches", m, ll, want_ll);
   check_mode("mix results = plain's", m, differ, 0);
   cs_delete(s);
}

static void test_no_false_hits(void)
{
   long want_ll;
   int m;

   begin();
   mix_make();
   want_ll = first_touches();
   for (m = 0; m < 4; m++) {
      low_lines(m);
      lines_4g_apart(m);
      straddle_one_set(m);
      big_ll_sweeps(m);
      big_ll_mix(m, want_ll);
   }
   end("no_false_hits");
}

/* With cacheuse, hits on resident lines after a flush of another sim,
   plus a mixed workload checked against the plain model: cacheuse must
   not change any miss count (tags are full addresses here, < 4 GiB). */
static void test_use_same_counts(void)
{
   cs_sim *p = mk(&L1, &LL, 0, 0, 0);
   cs_sim *u;
   cs_options o = { 0, 0, 1, 0 };
   cs_owner w = own(5);
   unsigned x = 12345, i, diff = 0;

   begin();
   u = cs_new(&L1, &L1, &LL, o, &hooks);
   for (i = 0; i < 20000; i++) {
      uint64_t a;
      unsigned size, r1, r2;
      x = x * 1103515245u + 12345u;
      a = BASE + (x >> 8) % 4096;
      size = 1 + (x >> 3) % 8;
      if (x & 1) {
         r1 = cs_read(p, a, size, 0);
         r2 = cs_read(u, a, size, &w);
      } else if (x & 2) {
         r1 = cs_write(p, a, size, 0);
         r2 = cs_write(u, a, size, &w);
      } else {
         r1 = cs_instr(p, a, size, 0);
         r2 = cs_instr(u, a, size, &w);
      }
      /* L1 results are identical; LL may differ only where the plain model
         sends both lines of a half-missing straddle to LL */
      if ((r1 & 1) != (r2 & 1))
         diff++;
   }
   CHECK("L1 results equal", diff, 0);
   cs_flush(u);
   CHECK("every load evicted", n_load, n_evict);
   cs_delete(u);
   cs_delete(p);
   end("cacheuse_l1_counts_equal_plain");
}

/* LL's LRU order with cacheuse (address tags, ll_find: the LRU way
   tested first, a hit there rotating the set two ways a move) against
   the plain model's (line numbers, the shifting search), for odd and even
   associativities: a tiny direct-mapped L1 sends nearly every access to
   LL, a few lines more than a set's ways hit LL at every position, the
   LRU way included; aligned accesses, so no straddle takes the two models
   apart. */
static void test_ll_lru_use_vs_plain(void)
{
   static const int assocs[] = { 1, 2, 3, 5, 7, 16 };
   const cs_geometry l1 = { 128, 1, 64 };
   unsigned k, i, x = 777;

   begin();
   for (k = 0; k < sizeof assocs / sizeof assocs[0]; k++) {
      const int sets = 4;
      cs_geometry ll = { assocs[k] * sets * 64, assocs[k], 64 };
      cs_sim *p = mk(&l1, &ll, 0, 0, 0), *u = mk(&l1, &ll, 0, 0, 1);
      cs_owner w = own(3);
      unsigned lines = (unsigned)(assocs[k] + 2) * sets, diff = 0, ll_hits = 0;
      for (i = 0; i < 20000; i++) {
         uint64_t a;
         unsigned r1, r2;
         x = x * 1103515245u + 12345u;
         a = BASE + (uint64_t)((x >> 8) % lines) * 64 + ((x >> 4) % 8) * 8;
         r1 = cs_read(p, a, 8, 0);
         r2 = cs_read(u, a, 8, &w);
         diff += r1 != r2;
         ll_hits += r2 == CS_L1_MISS;
      }
      CHECK("LL results equal", diff, 0);
      CHECK("some LL hits", ll_hits > 1000, 1);
      cs_flush(u);
      cs_delete(u);
      cs_delete(p);
   }
   end("ll_lru_use_vs_plain");
}

/* The split form as the tool calls it -- cs_X_hit(), then cs_X_miss()
   with the owner -- against the whole
   access (cs_read, cs_write, cs_instr) on a second simulator: the same
   results, the same loads and evictions with the same owners and metrics
   after every access, and at the final flush (which reports every line's
   use).  Addresses in 64 lines over 4 L1 sets, so most accesses hit a
   way that is not the MRU one or miss; sizes 1-8, some straddle. */
static unsigned split_access(cs_sim *s, int kind, uint64_t a, unsigned size,
                             const cs_owner *o)
{
   switch (kind) {
   case 0:
      if (cs_read_hit(s, a, size))
         return 0;
      return cs_read_miss(s, a, size, o);
   case 1:
      if (cs_write_hit(s, a, size))
         return 0;
      return cs_write_miss(s, a, size, o);
   default:
      if (cs_instr_hit(s, a, size))
         return 0;
      return cs_instr_miss(s, a, size, o);
   }
}

static unsigned whole_access(cs_sim *s, int kind, uint64_t a, unsigned size,
                             const cs_owner *o)
{
   return kind == 0 ? cs_read(s, a, size, o)
        : kind == 1 ? cs_write(s, a, size, o) : cs_instr(s, a, size, o);
}

/* The events since `from` split in two halves at `mid`: equal? */
static int same_events(int from, int mid, int to)
{
   int i;
   if (mid - from != to - mid)
      return 0;
   for (i = 0; i < mid - from; i++) {
      const event *x = &ev[from + i], *y = &ev[mid + i];
      if (x->kind != y->kind || x->level != y->level || x->owner != y->owner
          || x->ac != y->ac || x->sp != y->sp)
         return 0;
   }
   return 1;
}

/* Two simulators that saw the same accesses flush the same lines with
   the same metrics; then both go. */
static void flush_both_and_delete(cs_sim *a, cs_sim *b)
{
   int mid;
   reset_events();
   cs_flush(a);
   mid = n_ev;
   cs_flush(b);
   CHECK("flush events", same_events(0, mid, n_ev), 1);
   cs_delete(a);
   cs_delete(b);
}

static void split_vs_whole(int wb, int hwpref, int use, const char *name)
{
   cs_sim *whole = mk(&L1, &LL4, wb, hwpref, use);
   cs_sim *split = mk(&L1, &LL4, wb, hwpref, use);
   unsigned x = 777, i, diff_r = 0, diff_ev = 0;
   int mid;

   begin();
   for (i = 0; i < 40000; i++) {
      cs_owner o = own(1000 + i);
      uint64_t a;
      unsigned size, r;
      int kind;
      x = x * 1103515245u + 12345u;
      a = BASE + (x >> 8) % 4096;
      size = 1 + (x >> 3) % 8;
      kind = (x >> 28) % 3;
      reset_events();   /* (an access makes far fewer than EV_CAP) */
      r = whole_access(whole, kind, a, size, &o);
      mid = n_ev;
      if (r != split_access(split, kind, a, size, &o))
         diff_r++;
      if (!same_events(0, mid, n_ev))
         diff_ev++;
   }
   CHECK("results", diff_r, 0);
   CHECK("loads and evictions per access", diff_ev, 0);
   flush_both_and_delete(whole, split);
   end(name);
}

/* The inline hit paths (cs_instr, cs_read, cs_write: the MRU way, and for
   fetches both lines of one that straddles) against the slow path alone
   (cs_X_miss takes hits too): the same results, loads and evictions.
   The fetches walk code sequentially with x86-like sizes (1..15 bytes),
   jumping now and then, so that many cross a line boundary while both
   lines are the MRU ways of their sets; the test asserts that such hits
   happen. */
static void fast_vs_slow(int wb, int hwpref, int use, const char *name)
{
   cs_sim *fast = mk(&L1, &LL4, wb, hwpref, use);
   cs_sim *slow = mk(&L1, &LL4, wb, hwpref, use);
   unsigned x = 4242, i, diff_r = 0, diff_ev = 0, straddle_hits = 0;
   uint64_t pc = BASE;
   int mid;

   begin();
   for (i = 0; i < 40000; i++) {
      cs_owner o = own(2000 + i);
      unsigned size, r, kind;
      uint64_t a;
      x = x * 1103515245u + 12345u;
      kind = (x >> 28) % 4;          /* 0 read, 1 write, 2-3 fetch */
      size = kind >= 2 ? 1 + (x >> 4) % 15 : 1 + (x >> 4) % 8;
      if (kind >= 2) {
         if ((x >> 9) % 16 == 0)     /* a jump: somewhere in 16 lines */
            pc = BASE + (x >> 13) % 1024;
         a = pc;
         pc += size;
      } else {
         a = BASE + 2048 + (x >> 12) % 1024;
      }
      reset_events();
      r = kind == 0 ? cs_read(fast, a, size, &o)
        : kind == 1 ? cs_write(fast, a, size, &o) : cs_instr(fast, a, size, &o);
      mid = n_ev;
      if (kind >= 2 && r == 0 && (a >> 6) != ((a + size - 1) >> 6))
         straddle_hits++;
      if (r != (kind == 0 ? cs_read_miss(slow, a, size, &o)
                : kind == 1 ? cs_write_miss(slow, a, size, &o)
                : cs_instr_miss(slow, a, size, &o)))
         diff_r++;
      if (!same_events(0, mid, n_ev))
         diff_ev++;
   }
   CHECK("results", diff_r, 0);
   CHECK("loads and evictions per access", diff_ev, 0);
   CHECK("straddling fetches that hit", straddle_hits > 500, 1);
   flush_both_and_delete(fast, slow);
   end(name);
}

/* Late LL fill (cs_set_late_ll_fill): against a simulator that fills at
   once, the same results per access, and the same hook calls in the same
   order once settled -- checked after every cs_settle, which comes at
   random moments, as do collection switches (which settle first).  The
   hook calls of both sides are folded into one order-sensitive hash each
   (the event buffer is emptied after every access). */
static uint64_t fold_events(uint64_t h)
{
   int i;
   for (i = 0; i < n_ev; i++) {
      uint64_t v[5] = { (uint64_t)ev[i].kind, (uint64_t)ev[i].level,
                        (uint64_t)ev[i].owner, ev[i].ac, ev[i].sp };
      int k;
      for (k = 0; k < 5; k++)
         h = (h ^ v[k]) * 0x100000001b3ull;
   }
   reset_events();
   return h;
}

static void late_fill(void)
{
   cs_sim *late = mk(&L1, &LL4, 0, 0, 1);
   cs_sim *now = mk(&L1, &LL4, 0, 0, 1);
   uint64_t h_late = 0xcbf29ce484222325ull, h_now = h_late;
   unsigned x = 777, i, diff_r = 0, diff_settled = 0, late_ones = 0, settles = 0;

   begin();
   cs_set_late_ll_fill(late, 1);
   for (i = 0; i < 40000; i++) {
      cs_owner o = own(3000 + i);
      unsigned size, kind, r_late, r_now;
      uint64_t a;
      int n_late;
      x = x * 1103515245u + 12345u;
      kind = (x >> 28) % 4;       /* 0 read, 1 write, 2 fetch, 3 a hit again */
      size = 1 + (x >> 4) % 8;
      a = BASE + (x >> 8) % (64 * 128);   /* 128 lines: LL (32) misses */
      if (kind == 3)
         a = BASE + 3;            /* mostly an MRU hit */
      r_late = kind == 2 ? cs_instr(late, a, size, &o)
             : kind == 1 ? cs_write(late, a, size, &o) : cs_read(late, a, size, &o);
      n_late = n_ev;
      h_late = fold_events(h_late);
      r_now = kind == 2 ? cs_instr(now, a, size, &o)
            : kind == 1 ? cs_write(now, a, size, &o) : cs_read(now, a, size, &o);
      if (n_ev > n_late)
         late_ones++;
      h_now = fold_events(h_now);
      if (r_late != r_now)
         diff_r++;
      if ((x >> 3) % 64 == 0) {   /* collection switched: both settle */
         cs_set_collect(late, (x >> 9) & 1);
         cs_set_collect(now, (x >> 9) & 1);
         h_late = fold_events(h_late);
      }
      if ((x >> 13) % 8 == 0) {
         cs_settle(late);
         h_late = fold_events(h_late);
         settles++;
         if (h_late != h_now)
            diff_settled++;
      }
   }
   CHECK("results", diff_r, 0);
   CHECK("hooks once settled", diff_settled, 0);
   CHECK("settled often", settles > 1000, 1);
   CHECK("fills made late", late_ones > 1000, 1);
   cs_settle(late);
   CHECK("hooks at the end", fold_events(h_late) == h_now, 1);
   flush_both_and_delete(late, now);
   end("late_fill");
}

/* Planned fetch groups (cs_plan_fetch, cs_planned_fetch_hit): a group of
   1-6 contiguous instructions inside one line, or one instruction
   crossing into the next line, simulated with its plan (on a failed MRU
   test: cs_instr_miss for the first, cs_instr_hits for the others),
   against a simulator that gets every instruction through cs_instr.  The
   same result for the group's first instruction (the others must hit),
   the same loads and evictions, and at the final flush, which reports
   every line's AcCost and SpLoss, the same use counts and masks.  Data
   reads in between make I1 lines leave through LL. */
static void planned_fetches(int use, const char *name)
{
   cs_sim *plan = mk(&L1, &LL4, 0, 0, use);
   cs_sim *each = mk(&L1, &LL4, 0, 0, use);
   unsigned x = 9090, i, k, diff_r = 0, diff_ev = 0, planned_hits = 0,
            planned_misses = 0, crossing_hits = 0, crossing_misses = 0;
   uint64_t pc = BASE;
   int mid;

   begin();
   for (i = 0; i < 20000; i++) {
      cs_owner o = own(5000 + i);
      uint64_t a, start;
      unsigned n, len = 0, sizes[6], r_plan, r_each = 0;
      cs_fetch_plan p;
      uint32_t second;
      x = x * 1103515245u + 12345u;
      if ((x >> 9) % 8 == 0)          /* a jump: somewhere in 32 lines */
         pc = BASE + (x >> 13) % 2048;
      reset_events();
      if ((x >> 28) % 4 == 0) {       /* a data read: LL changes */
         a = BASE + 4096 + (x >> 5) % 4096;
         cs_read(plan, a, 4, &o);
         mid = n_ev;
         cs_read(each, a, 4, &o);
         if (!same_events(0, mid, n_ev))
            diff_ev++;
         continue;
      }
      /* the group: instructions of 1-15 bytes while they stay in the
         first one's line (a first one that crosses is alone) */
      start = pc;
      n = 1 + (x >> 4) % 6;
      for (k = 0; k < n; k++) {
         sizes[k] = 1 + (x >> (k * 4 % 24)) % 15;
         if (k > 0 && ((start + len + sizes[k] - 1) >> 6) != (start >> 6))
            break;
         len += sizes[k];
         if (((start + len - 1) >> 6) != (start >> 6))
            { k++; break; }
      }
      n = k;
      cs_plan_fetch(plan, start, len, &p, &second);
      if (!p.bits || (second != 0) != (((start + len - 1) >> 6) != (start >> 6))) {
         diff_r++;                  /* no plan, or the crossing not told */
         r_plan = cs_instr(plan, start, len, &o);
      } else if (cs_planned_fetch_hit(plan, &p, n, second)) {
         planned_hits++;
         crossing_hits += second != 0;
         r_plan = 0;
      } else {
         planned_misses++;
         crossing_misses += second != 0;
         r_plan = cs_instr_miss(plan, start, sizes[0], &o);
         if (n > 1)
            cs_instr_hits(plan, start + sizes[0], start + len - 1, n - 1);
      }
      mid = n_ev;
      for (k = 0, a = start; k < n; a += sizes[k], k++) {
         unsigned r = cs_instr(each, a, sizes[k], &o);
         if (k == 0)
            r_each = r;
         else if (r != 0)
            diff_r++;               /* (not a group: the test is wrong) */
      }
      if (r_plan != r_each)
         diff_r++;
      if (!same_events(0, mid, n_ev))
         diff_ev++;
      pc = start + len;
   }
   CHECK("results", diff_r, 0);
   CHECK("loads and evictions per group", diff_ev, 0);
   CHECK("planned groups that hit", planned_hits > 2000, 1);
   CHECK("planned groups that missed", planned_misses > 200, 1);
   CHECK("groups crossing a line that hit", crossing_hits > 100, 1);
   CHECK("groups crossing a line that missed", crossing_misses > 20, 1);
   flush_both_and_delete(plan, each);
   end(name);
}

/* The split miss (cs_l1_probe, cs_l1_finish) against cs_X_miss: random
   accesses that are no MRU hit on one simulator go through the probe
   (and, when it says no, cs_l1_finish), on the other through
   cs_read_miss/cs_write_miss/cs_instr_miss: the same results, and the
   same hook calls in the same order (hashed; the late LL fill on in both,
   settled at random), up to the final flush.  In each mode where the
   probe applies, it must hit (another way) and miss many times; where it
   does not (write-back, the reference's prefetcher, no cacheuse),
   cs_l1_finish alone must make the access. */
static void probe_vs_miss(int wb, int hwpref, int use, const char *name)
{
   cs_sim *probe = mk(&L1, &LL4, wb, hwpref, use);
   cs_sim *miss = mk(&L1, &LL4, wb, hwpref, use);
   uint64_t h_probe = 0xcbf29ce484222325ull, h_miss = h_probe;
   unsigned x = 4711, i, diff_r = 0, diff_h = 0, hits = 0, finished = 0;
   unsigned straddle_hits = 0, straddle_finished = 0;
   int applies = use && !wb && !hwpref;

   begin();
   if (use && !wb) {
      cs_set_late_ll_fill(probe, 1);
      cs_set_late_ll_fill(miss, 1);
   }
   for (i = 0; i < 40000; i++) {
      cs_owner o = own(7000 + i);
      unsigned size, kind, r_probe, r_miss;
      uint64_t a;
      cs_probe p;
      x = x * 1103515245u + 12345u;
      kind = (x >> 28) % 3;       /* 0 read, 1 write, 2 fetch */
      size = 1 + (x >> 4) % 8;
      a = BASE + (x >> 8) % (64 * 48);   /* 48 lines: 12 per L1 set */
      if (cs_l1_probe(probe, &p, kind == 2, a, size)) {
         hits++;
         straddle_hits += (a & 63) + size > 64;
         r_probe = 0;
      } else {
         finished++;
         straddle_finished += (a & 63) + size > 64 && p.bits;
         r_probe = cs_l1_finish(probe, &p, a, size, &o, kind == 1);
      }
      h_probe = fold_events(h_probe);
      r_miss = kind == 2 ? cs_instr_miss(miss, a, size, &o)
             : kind == 1 ? cs_write_miss(miss, a, size, &o)
                         : cs_read_miss(miss, a, size, &o);
      h_miss = fold_events(h_miss);
      if (r_probe != r_miss)
         diff_r++;
      if ((x >> 13) % 8 == 0) {
         cs_settle(probe);
            h_probe = fold_events(h_probe);
         cs_settle(miss);
            h_miss = fold_events(h_miss);
         if (h_probe != h_miss)
            diff_h++;
      }
   }
   CHECK("results", diff_r, 0);
   CHECK("hooks once settled", diff_h, 0);
   if (applies) {
      CHECK("other-way hits", hits > 2000, 1);
      CHECK("misses finished", finished > 2000, 1);
      /* crossing into the next line: both lines hit, or one missed */
      CHECK("straddles that hit", straddle_hits > 20, 1);   /* 76 */
      CHECK("straddles finished from the probe", straddle_finished > 100, 1);
   } else {
      CHECK("probes that hit where it does not apply", hits, 0);
   }
   flush_both_and_delete(probe, miss);
   end(name);
}

/* cs_forget_owners: forgotten lines report to nobody, and nothing else
   changes: the same accesses give the same results and the same metrics
   as in a simulator that forgot nothing. */
static int forget_odd(void *ctx, int level, const cs_owner *o)
{
   (void)level;
   ++*(int *)ctx;
   return ((long)(uintptr_t)o->slot & 1) != 0;
}

static void forget_run(cs_sim *s, int forget, unsigned *results,
                       event *events, int *n_events, int *asked)
{
   int i, k = 0;
   cs_owner o;
   reset_events();
   for (i = 0; i < 40; i++) {          /* owners 1..40, several sets */
      o = own(i + 1);
      results[k++] = cs_read(s, LINE(i * 3), 4 + (i % 8), &o);
   }
   if (forget)
      cs_forget_owners(s, forget_odd, asked);
   reset_events();
   for (i = 0; i < 60; i++) {          /* owners 100.., evicting the above */
      o = own(100 + 2 * i);
      results[k++] = cs_read(s, LINE(i * 5 + 1), 8, &o);
      results[k++] = cs_instr(s, LINE(i * 7), 4, &o);
   }
   cs_flush(s);
   memcpy(events, ev, sizeof(event) * n_ev);
   *n_events = n_ev;
}

static void test_forget_owners(void)
{
   static unsigned r_keep[200], r_forget[200];
   static event e_keep[4096], e_forget[4096];
   int n_keep, n_forget, asked = 0, i, same = 1, nobody = 0, odd_left = 0;
   cs_sim *s;

   begin();
   s = mk(&L1, &LL4, 0, 0, 1);
   forget_run(s, 0, r_keep, e_keep, &n_keep, &asked);
   cs_delete(s);
   s = mk(&L1, &LL4, 0, 0, 1);
   forget_run(s, 1, r_forget, e_forget, &n_forget, &asked);
   cs_delete(s);

   CHECK("owners asked", asked > 0, 1);
   CHECK("same results", memcmp(r_keep, r_forget, sizeof r_keep), 0);
   CHECK("same number of evictions", n_forget, n_keep);
   for (i = 0; i < n_keep && i < n_forget; i++) {
      long want = e_keep[i].owner;
      if (want < 100 && (want & 1))
         want = 0;                       /* forgotten */
      if (e_forget[i].owner == 0)
         nobody++;
      if (e_forget[i].owner < 100 && (e_forget[i].owner & 1))
         odd_left++;
      if (e_forget[i].kind != e_keep[i].kind || e_forget[i].level != e_keep[i].level
          || e_forget[i].owner != want || e_forget[i].ac != e_keep[i].ac
          || e_forget[i].sp != e_keep[i].sp)
         same = 0;
   }
   CHECK("same metrics, forgotten owners NULL", same, 1);
   CHECK("some evictions of forgotten lines", nobody > 0, 1);
   CHECK("no forgotten owner reported", odd_left, 0);

   /* without cacheuse there is nothing to forget */
   asked = 0;
   s = mk(&L1, &LL, 0, 0, 0);
   cs_read(s, LINE(1), 4, 0);
   cs_forget_owners(s, forget_odd, &asked);
   CHECK("no use: nothing asked", asked, 0);
   cs_delete(s);
   end("forget_owners");
}

/* D1 victim observer (--bandwidth's write-backs): L1 512 B, 2-way, 64 B
   lines = 4 sets.  Lines 0, 4, 8 fall into set 0: the third access drops
   line 0 (LRU), then line 12 drops line 4 (4 was used before 8), a hit
   drops nothing, an I1 miss is not D1's.  A straddling access that misses
   both lines reports both victims.  The same in every mode (plain,
   write-back, cacheuse): the victims do not depend on the mode. */
static uint64_t victims[16];
static int n_victims;

static void victim(void *ctx, uint64_t line)
{
   (void)ctx;
   if (n_victims < 16)
      victims[n_victims++] = line;
}

/* A data access as the tool's replay makes one that is no MRU hit: the
   split miss (cs_l1_probe, then cs_l1_finish). */
static void probe_then_finish(cs_sim *s, uint64_t a, unsigned size,
                              const cs_owner *o, int is_write)
{
   cs_probe p;
   if (!cs_l1_probe(s, &p, 0, a, size))
      cs_l1_finish(s, &p, a, size, o, is_write);
}

/* Mode 3 is cacheuse with the split miss: the probe must not apply where
   a victim observer is set (its search does not tell one). */
static void test_d1_victims(void)
{
   int mode;

   begin();
   for (mode = 0; mode < 4; mode++) {
      cs_sim *s = mk(&L1, &LL, mode == 1, 0, mode >= 2);
      cs_owner o = own(1);
      n_victims = 0;
      cs_set_d1_victim_observer(s, victim, 0);
      cs_read(s, 0 * 64, 8, &o);
      cs_write(s, 4 * 64, 8, &o);
      cs_read(s, 0 * 64, 8, &o);             /* hit: 0 is now MRU */
      CHECK("no victim while the set fills", n_victims, 0);
      if (mode == 3) {
         probe_then_finish(s, 8 * 64, 8, &o, 0);
         probe_then_finish(s, 12 * 64, 8, &o, 1);
      } else {
         cs_read(s, 8 * 64, 8, &o);          /* drops 4 */
         cs_write(s, 12 * 64, 8, &o);        /* drops 0 */
      }
      cs_instr(s, 16 * 64, 4, &o);           /* I1: not reported */
      CHECK("two victims", n_victims, 2);
      CHECK("first victim", (long)victims[0], 4);
      CHECK("second victim", (long)victims[1], 0);
      /* an access straddling lines 13 | 14 (sets 1 and 2, still empty):
         no victim; 17 fills set 1's second way; 21 drops 13 (its LRU) */
      cs_read(s, 14 * 64 - 4, 8, &o);
      CHECK("straddle into empty ways", n_victims, 2);
      cs_read(s, 17 * 64, 8, &o);            /* set 1: fills the 2nd way */
      cs_read(s, 21 * 64, 8, &o);            /* set 1: drops 13 */
      CHECK("victim of set 1", (long)victims[2], 13);
      cs_delete(s);
   }
   end("D1 victim observer: the lines a D1 miss drops, every mode, split miss too");
}

/* cs_clear empties LL while a merge is not made yet (cachesim.c defers
   the L1 victim's merge to LL's next merge): the line loaded into the
   same LL slot afterwards must not get the old line's use.  This checks
   the outcome only: cs__empty_cache drops the merge, but loading the
   slot's new line would also overwrite what a late merge added (checked
   by removing the drop: the test still passes). */
static void test_clear_drops_merge(void)
{
   cs_owner a = own(1), o = own(2), d = own(5);
   cs_sim *s;
   int e;

   begin();
   s = n0_read_twice(&a);
   /* n0+4, n0+12 (D1 set 0, LL set 4): the second evicts n0 from D1, its
      count 2 to be merged into LL slot 1 */
   cs_read(s, LINE(4), 4, &o);
   cs_read(s, LINE(12), 4, &o);
   cs_clear(s);
   /* n0 again, once: the empty LL set 0 gives it slot 1 again, count 0 */
   cs_read(s, LINE(0), 4, &d);
   reset_events();
   cs_flush(s);
   /* the flush merges D1's count 1 only: AcCost2 1000 (1000/3 = 333 if
      the count 2 from before the clear had reached it) */
   e = find_evict(2, 5);
   CHECK("LL line after clear", e >= 0 ? (long)ev[e].ac : -1, 1000);
   cs_delete(s);
   end("clear_drops_merge");
}

/* Charging (cs_set_charging) against hooks that do by hand what
   cs_charging documents: a line leaving level L adds its AcCost and
   SpLoss to its owner's counters ac[L], sp[L] (the slot's low bit
   ignored) and gives them to its node (bd_evict2 at pair[L]); a load
   takes a node reference; a NULL slot charges nothing.  One random
   run per mode over two cost slots and a changing call chain (random arcs
   to depth 4, so lines hold different nodes, pruned as their last line
   leaves), with the L1 and LL pairs at different counters; then every
   line leaves (cs_clear) and the tree is finished.  The counters, what
   reached each call arc and the root, and the live nodes after the clear
   must be the same (a reference kept too many leaves nodes alive). */
enum { CH_ARCS = 3, CH_DEPTH = 4, CH_N = 4 };
static const cs_charging charging = { { 0, 1, 4, 0 }, { 0, 2, 5, 0 }, { 0, 0, 2, 0 } };
static uint64_t ch_arc_total[CH_ARCS][CH_N];
static int ch_arc_id[CH_ARCS];

static void ch_deliver(void *ctx, void *arc, const uint64_t *c, int n)
{
   int a = (int *)arc - ch_arc_id, i;
   (void)ctx;
   for (i = 0; i < n; i++)
      ch_arc_total[a][i] += c[i];
}

static void ch_load(void *ctx, int level, const cs_owner *o)
{
   (void)ctx; (void)level;
   if (o->node)
      bd_ref(o->node);
}

static void ch_evict(void *ctx, int level, const cs_owner *o, uint32_t ac,
                     uint32_t sp)
{
   uint64_t *slot = (uint64_t *)((uintptr_t)o->slot & ~(uintptr_t)1);
   (void)ctx;
   if (!slot)
      return;
   slot[charging.ac[level]] += ac;
   slot[charging.sp[level]] += sp;
   if (o->node)
      bd_evict2(o->node, charging.pair[level], ac, sp);
}

static const cs_hooks ch_hooks = { 0, ch_load, ch_evict, 0 };

/* One run; slots[2][8] get the counters, root[] the root's total. */
/* An access the way the tool makes it: the MRU test, the probe of the
   other ways, then the rest of the miss (cs_l1_probe's contract). */
static unsigned tool_access(cs_sim *s, int instr, uint64_t a, unsigned size,
                            const cs_owner *o, int write)
{
   cs_probe p;
   if (instr ? cs_instr_hit(s, a, size)
       : write ? cs_write_hit(s, a, size) : cs_read_hit(s, a, size))
      return 0;
   if (cs_l1_probe(s, &p, instr, a, size))
      return 0;
   return cs_l1_finish(s, &p, a, size, o, write);
}

/* late: LL fills made late (the ring of cs_set_late_ll_fill with
   charging); *deep counts the accesses after which more than one waited.
   general: the model's general miss and fill paths even where its common
   ones (common_l1_miss, common_fill: s->common_miss) would apply;
   *common tells whether they applied. */
static void charging_run(int charge, int late, int general,
                         uint64_t slots[2][8], uint64_t *root,
                         uint64_t *nodes_left, int *deep, int *common)
{
   const cs_geometry l1 = { 512, 2, 64 }, ll = { 2048, 4, 64 };
   cs_options o = { 0, 0, 1, 0 };
   bd_forest *f = bd_forest_new(CH_N, ch_deliver, 0);
   bd_tree *t = bd_tree_new(f);
   cs_sim *s = cs_new(&l1, &l1, &ll, o, &ch_hooks);
   bd_stats st;
   int i, depth = 0;

   if (charge)
      cs_set_charging(s, &charging);
   cs_set_late_ll_fill(s, late);
   if (general)
      s->common_miss = 0;
   *common = s->common_miss;
   *deep = 0;
   memset(ch_arc_total, 0, sizeof ch_arc_total);
   rng = 0x9E3779B97F4A7C15ull;
   for (i = 0; i < 6000; i++) {
      unsigned r = rnd(100), k = rnd(2);
      cs_owner ow = { (void *)((uintptr_t)slots[k] | (r & 1)), bd_active(t), 0, 0 };
      if (r < 4 && depth < CH_DEPTH) {
         bd_call(t, &ch_arc_id[rnd(CH_ARCS)]);
         depth++;
         continue;
      }
      if (r < 8 && depth > 0) {
         bd_return(t, 1);
         depth--;
         continue;
      }
      if (r < 10)
         ow.slot = 0;                    /* a forgotten owner */
      if (r < 40)
         tool_access(s, 1, LINE(rnd(96)) + rnd(60), 4, &ow, 0);
      else
         tool_access(s, 0, LINE(rnd(96)) + rnd(62), 8, &ow, (r & 2) != 0);
      *deep += s->fill_pending > 1;
   }
   cs_clear(s);
   bd_get_stats(f, &st);
   *nodes_left = st.nodes_now;
   bd_tree_close(t);
   bd_finish(f);
   bd_forest_root_total(f, root);
   cs_delete(s);
   bd_forest_free(f);
}

/* With late, the charging side makes its LL fills late, several waiting
   at a time, while the tree changes under them (the owners' nodes come
   from bd_active, calls and returns are not settled first): the same
   totals once cleared, and the same live nodes.  With late the charging
   side takes the model's common miss and fill paths (checked), and
   general makes it take the general ones instead: with both, the test
   compares the two paths (one source, cachesim.c's COMMON and GENERAL)
   through the hooks' results. */
static void charging_vs_hooks(int late, int general, const char *name)
{
   static uint64_t by_hooks[2][8], by_charge[2][8];
   uint64_t root_h[CH_N], root_c[CH_N], arcs_h[CH_ARCS][CH_N], left_h, left_c;
   int i, sums = 1, deep, common;

   begin();
   memset(by_hooks, 0, sizeof by_hooks);
   memset(by_charge, 0, sizeof by_charge);
   charging_run(0, 0, 0, by_hooks, root_h, &left_h, &deep, &common);
   CHECK("hooks: general paths", common, 0);
   memcpy(arcs_h, ch_arc_total, sizeof arcs_h);
   charging_run(1, late, general, by_charge, root_c, &left_c, &deep, &common);
   CHECK("charging: common paths", common, late && !general);
   if (late)
      CHECK("fills waiting together", deep > 500, 1);
   CHECK("counters", memcmp(by_hooks, by_charge, sizeof by_hooks), 0);
   CHECK("arcs", memcmp(arcs_h, ch_arc_total, sizeof arcs_h), 0);
   CHECK("root", memcmp(root_h, root_c, sizeof root_h), 0);
   CHECK("live nodes before the close", left_c, left_h);
   /* the run exercised what it claims: both levels charged, the arcs got
      metrics, and the root got every one (what the slots got too) */
   CHECK("L1 AcCost charged", by_charge[0][1] > 0 && by_charge[1][1] > 0, 1);
   CHECK("LL AcCost charged", by_charge[0][4] > 0, 1);
   CHECK("arcs reached", ch_arc_total[0][0] > 0 && ch_arc_total[CH_ARCS - 1][0] > 0, 1);
   for (i = 0; i < CH_N; i++) {
      static const int at[CH_N] = { 1, 2, 4, 5 };     /* counter i's slot position */
      if (root_c[i] != by_charge[0][at[i]] + by_charge[1][at[i]])
         sums = 0;
   }
   CHECK("root total = slot totals", sums, 1);
   end(name);
}

int main(void)
{
   test_geometry_check();
   test_geometry_fixup();
   test_sequential_sweep();
   test_strides_conflicts();
   test_lru_order();
   test_straddle();
   test_use_masks();
   test_accost_sploss();
   test_flush();
   test_merge_to_stale_slot();
   test_merge_into_ll_victim();
   test_clear_drops_merge();
   test_write_back();
   test_prefetch();
   test_use_with_wb_hwpref();
   test_use_same_counts();
   test_use_count_wraps_alone();
   test_ll_lru_use_vs_plain();
   test_no_false_hits();
   test_forget_owners();
   test_d1_victims();
   split_vs_whole(0, 0, 0, "split_vs_whole/plain");
   split_vs_whole(0, 0, 1, "split_vs_whole/cacheuse");
   split_vs_whole(1, 0, 1, "split_vs_whole/cacheuse+wb");
   split_vs_whole(0, 1, 1, "split_vs_whole/cacheuse+hwpref");
   split_vs_whole(1, 1, 0, "split_vs_whole/wb+hwpref");
   fast_vs_slow(0, 0, 0, "fast_vs_slow/plain");
   fast_vs_slow(0, 0, 1, "fast_vs_slow/cacheuse");
   fast_vs_slow(1, 0, 1, "fast_vs_slow/cacheuse+wb");
   fast_vs_slow(0, 1, 1, "fast_vs_slow/cacheuse+hwpref");
   fast_vs_slow(1, 1, 0, "fast_vs_slow/wb+hwpref");
   late_fill();
   planned_fetches(0, "planned_fetches/plain");
   planned_fetches(1, "planned_fetches/cacheuse");
   probe_vs_miss(0, 0, 1, "probe_vs_miss/cacheuse");
   probe_vs_miss(0, 0, 0, "probe_vs_miss/plain");
   probe_vs_miss(1, 0, 1, "probe_vs_miss/cacheuse+wb");
   probe_vs_miss(0, 1, 1, "probe_vs_miss/cacheuse+hwpref");
   charging_vs_hooks(0, 0, "charging_vs_hooks");
   charging_vs_hooks(1, 0, "charging_vs_hooks/late_fill_ring");
   charging_vs_hooks(1, 1, "charging_vs_hooks/late_fill_ring_general");
   return failures ? 1 : 0;
}
