/*
** test_reusedist.c -- native unit tests of cachesim/lrustack.c,
** cachesim/lineset.c and cachesim/reusedist.c.
**
** Build and run (from the project root):
**   gcc -O2 -g -Wall -Wextra -Icachesim -o test_reusedist \
**       tests/unit/test_reusedist.c tests/unit/port_native.c \
**       cachesim/lrustack.c cachesim/lineset.c cachesim/reusedist.c \
**       cachesim/cachesim.c cachesim/l2.c cachesim/streampf.c && ./test_reusedist
**
** Prints "PASS <group>" or "FAIL <group>: detail" per group; exits 0 only
** if every group passed.  Expectations are derived by hand in the
** comments; the random groups compare against a naive O(n) LRU stack.
**
** Buckets (reusedist.h): with edges 0,1,2,4,...,L, bucket 0 is d = 0,
** bucket 1 is d = 1, bucket 2 is 2..3, bucket 3 is 4..7, bucket 4 is 8..15;
** then far (d >= L) and cold (first touch).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reusedist.h"
#include "lrustack.h"
#include "lineset.h"

#include "check.h"

#define BASE 0x7f0000000000ull
#define ADDR(line) (BASE + 64ull * (line))

/* ---- edges --------------------------------------------------------------- */

static void test_edges(void)
{
   rd_sim *r;

   begin();
   /* L = 16: edges 0 1 2 4 8 | 16 -> 5 finite buckets, far 5, cold 6 */
   r = rd_new(16, 64);
   CHECK("L16 finite", rd_far(r), 5);
   CHECK("L16 cold", rd_cold(r), 6);
   CHECK("L16 buckets", rd_buckets(r), 7);
   CHECK("edge 0", rd_lower_edge(r, 0), 0);
   CHECK("edge 1", rd_lower_edge(r, 1), 1);
   CHECK("edge 3", rd_lower_edge(r, 3), 4);
   CHECK("edge 4", rd_lower_edge(r, 4), 8);
   CHECK("edge far", rd_lower_edge(r, 5), 16);
   rd_delete(r);
   /* L = 6: edges 0 1 2 4 | 6 -> 4 finite buckets, the last is 4..5 */
   r = rd_new(6, 64);
   CHECK("L6 finite", rd_far(r), 4);
   CHECK("L6 edge far", rd_lower_edge(r, 4), 6);
   rd_delete(r);
   /* L = 1: only d = 0 is finite */
   r = rd_new(1, 64);
   CHECK("L1 finite", rd_far(r), 1);
   rd_delete(r);
   /* the default LL, 262144 B / 64 B = 4096 lines: 0 1 2 4 ... 2048 = 13
      finite buckets */
   r = rd_new(4096, 64);
   CHECK("L4096 finite", rd_far(r), 13);
   CHECK("L4096 edge 12", rd_lower_edge(r, 12), 2048);
   rd_delete(r);
   end("edges");
}

/* ---- known patterns ------------------------------------------------------ */

/* A cycle over n lines, `rounds` times, one 8-byte read per line. */
static void cycle(rd_sim *r, int n, int rounds, long *hist)
{
   int i, k;
   for (k = 0; k < rounds; k++)
      for (i = 0; i < n; i++)
         hist[rd_access(r, ADDR(i), 8)]++;
}

static void test_cyclic(void)
{
   long h[64];
   rd_sim *r;

   begin();
   /* 4 lines A B C D repeated 5 times, L = 16: the first round is cold (4);
      afterwards each line has seen the 3 others since: d = 3, bucket 2
      (2..3): 4 * 4 = 16. */
   r = rd_new(16, 64);
   memset(h, 0, sizeof h);
   cycle(r, 4, 5, h);
   CHECK("4-cycle cold", h[rd_cold(r)], 4);
   CHECK("4-cycle d=3", h[2], 16);
   CHECK("4-cycle others", h[0] + h[1] + h[3] + h[4] + h[rd_far(r)], 0);
   rd_delete(r);

   /* 9 lines, 3 rounds, L = 16: d = 8, bucket 4 (8..15): 2 * 9 = 18 */
   r = rd_new(16, 64);
   memset(h, 0, sizeof h);
   cycle(r, 9, 3, h);
   CHECK("9-cycle cold", h[rd_cold(r)], 9);
   CHECK("9-cycle d=8", h[4], 18);
   rd_delete(r);

   /* 16 lines, L = 16: d = 15, still inside (bucket 4 = 8..15) */
   r = rd_new(16, 64);
   memset(h, 0, sizeof h);
   cycle(r, 16, 3, h);
   CHECK("16-cycle d=15", h[4], 32);
   CHECK("16-cycle far", h[rd_far(r)], 0);
   rd_delete(r);

   /* 17 lines, L = 16: d = 16 >= L: far, 2 * 17 = 34 */
   r = rd_new(16, 64);
   memset(h, 0, sizeof h);
   cycle(r, 17, 3, h);
   CHECK("17-cycle cold", h[rd_cold(r)], 17);
   CHECK("17-cycle far", h[rd_far(r)], 34);
   CHECK("17-cycle finite", h[0] + h[1] + h[2] + h[3] + h[4], 0);
   rd_delete(r);

   /* L = 6 (not a power of two): 6-cycle d = 5 in bucket 3 (4..5);
      7-cycle d = 6 far */
   r = rd_new(6, 64);
   memset(h, 0, sizeof h);
   cycle(r, 6, 2, h);
   CHECK("L6 6-cycle", h[3], 6);
   rd_clear(r);
   memset(h, 0, sizeof h);
   cycle(r, 7, 2, h);
   CHECK("L6 7-cycle cold after clear", h[rd_cold(r)], 7);
   CHECK("L6 7-cycle far", h[rd_far(r)], 7);
   rd_delete(r);
   end("cyclic");
}

static void test_sequence(void)
{
   /* lines 1 2 1 3 1 2 2 4 3:
        1 cold; 2 cold; 1: {2} since -> d 1; 3 cold; 1: {3} -> d 1;
        2: {1,3} -> d 2 (bucket 2); 2 again: d 0; 4 cold;
        3: {1,2,4} -> d 3 (bucket 2) */
   static const int seq[] = { 1, 2, 1, 3, 1, 2, 2, 4, 3 };
   rd_sim *r = rd_new(16, 64);
   int want[9], i;

   want[0] = want[1] = want[3] = want[7] = rd_cold(r);
   want[2] = want[4] = 1;
   want[5] = want[8] = 2;
   want[6] = 0;
   begin();
   for (i = 0; i < 9; i++) {
      char what[32];
      snprintf(what, sizeof what, "ref %d (line %d)", i, seq[i]);
      CHECK(what, rd_access(r, ADDR(seq[i]) + 8, 4), want[i]);
   }
   rd_delete(r);
   end("sequence");
}

static void test_straddle(void)
{
   rd_sim *r = rd_new(16, 64);

   begin();
   /* lines 0..3 read once (cold), then an 8-byte read at the end of line 1
      crossing into line 2: line 1 has d 2 ({2,3}), then line 2 has d 2
      ({3,1}): bucket 2 */
   CHECK("l0", rd_access(r, ADDR(0), 8), rd_cold(r));
   CHECK("l1", rd_access(r, ADDR(1), 8), rd_cold(r));
   CHECK("l2", rd_access(r, ADDR(2), 8), rd_cold(r));
   CHECK("l3", rd_access(r, ADDR(3), 8), rd_cold(r));
   CHECK("1|2", rd_access(r, ADDR(2) - 4, 8), 2);
   /* now the stack is 2 1 3 0: a read crossing 3|4 is cold (line 4 new)
      although line 3 is not */
   CHECK("3|4", rd_access(r, ADDR(4) - 4, 8), rd_cold(r));
   /* stack 4 3 2 1 0: crossing 0|1: line 0 d 4 (bucket 3), then line 1:
      {0,4,3,2} since -> d 4 -> bucket 3 */
   CHECK("0|1", rd_access(r, ADDR(1) - 2, 4), 3);
   /* the same bytes again: line 0 d 1 (only 1 since), line 1 d 1: bucket 1 */
   CHECK("0|1 again", rd_access(r, ADDR(1) - 2, 4), 1);
   rd_delete(r);
   end("straddle");
}

/* ---- random sequences against a naive LRU stack ---------------------------- */


/* Naive: all distinct lines in MRU order; returns the position of line
   (its distance) or -1, and moves it to the front. */
static int naive_ref(uint64_t *stk, int *n, uint64_t line)
{
   int i, p = -1;
   for (i = 0; i < *n; i++)
      if (stk[i] == line) { p = i; break; }
   if (p < 0) { p = *n; (*n)++; }
   for (i = p; i > 0; i--)
      stk[i] = stk[i - 1];
   stk[0] = line;
   return p;
}

static int bucket_of_distance(const ls_stack *s, uint32_t d)
{
   int j;
   if (d >= s->capacity)
      return LS_ABSENT;
   for (j = 0; j + 1 <= s->n_buckets; j++)
      if (d < s->edge[j + 1])
         return j;
   return LS_ABSENT;
}

static void random_against_naive(uint32_t capacity, int pow2, unsigned universe,
                                 int refs, const char *label)
{
   static uint64_t stk[4096];
   static char seen[4096];
   ls_stack *s = ls_new(capacity, pow2);
   int n = 0, i;

   memset(seen, 0, sizeof seen);
   for (i = 0; i < refs && !group_failed; i++) {
      if (i == refs / 2) {      /* forget everything, as after a clear */
         ls_clear(s);
         n = 0;
      }
      /* skewed: half the references among the first few lines */
      uint64_t line = rnd(2) ? rnd(universe) : rnd(universe < 8 ? universe : 8);
      int before = n, d = naive_ref(stk, &n, line * 977 + 5);
      int want = (n > before) ? LS_ABSENT : bucket_of_distance(s, (uint32_t)d);
      char what[96];
      snprintf(what, sizeof what, "%s ref %d line %llu", label, i,
               (unsigned long long)line);
      CHECK(what, ls_ref(s, line * 977 + 5), want);
      if (i % 997 == 0)
         CHECK("count", s->count, n < (int)capacity ? n : (int)capacity);
   }
   ls_delete(s);
}

static void test_random(void)
{
   begin();
   random_against_naive(1, 0, 5, 3000, "FA1");
   random_against_naive(2, 1, 6, 3000, "B2");
   random_against_naive(8, 0, 20, 20000, "FA8");
   random_against_naive(8, 1, 20, 20000, "B8");
   random_against_naive(6, 1, 12, 20000, "B6");
   random_against_naive(100, 1, 300, 50000, "B100");
   random_against_naive(512, 1, 600, 100000, "B512");
   random_against_naive(4096, 1, 3000, 100000, "B4096-notfull");
   end("random_vs_naive");
}

/* ---- lineset ------------------------------------------------------------- */

static void test_lineset(void)
{
   lineset *s = lset_new();
   uint64_t i;

   begin();
   CHECK("new 0", lset_test_and_add(s, 0), 0);
   CHECK("again 0", lset_test_and_add(s, 0), 1);
   /* neighbours across a chunk edge (32768 lines per chunk) */
   CHECK("32767", lset_test_and_add(s, 32767), 0);
   CHECK("32768", lset_test_and_add(s, 32768), 0);
   CHECK("32767 again", lset_test_and_add(s, 32767), 1);
   /* large line numbers (a stack near 2^47 with 64-byte lines) */
   CHECK("high", lset_test_and_add(s, (1ull << 41) + 3), 0);
   CHECK("high again", lset_test_and_add(s, (1ull << 41) + 3), 1);
   CHECK("high+1", lset_test_and_add(s, (1ull << 41) + 4), 0);
   /* 1000 chunks: the table grows; every line stays known */
   for (i = 0; i < 1000; i++)
      CHECK("spread new", lset_test_and_add(s, i * 40000 + 7), 0);
   for (i = 0; i < 1000; i++)
      CHECK("spread known", lset_test_and_add(s, i * 40000 + 7), 1);
   CHECK("0 still", lset_test_and_add(s, 0), 1);
   lset_clear(s);
   CHECK("after clear", lset_test_and_add(s, 0), 0);
   CHECK("after clear spread", lset_test_and_add(s, 500 * 40000 + 7), 0);
   lset_delete(s);
   end("lineset");
}

int main(void)
{
   rng = 88172645463325252ull;   /* the sequences the random groups were written with */
   test_edges();
   test_cyclic();
   test_sequence();
   test_straddle();
   test_random();
   test_lineset();
   return failures ? 1 : 0;
}
