/*
** test_branchsim.c -- native unit tests of cachesim/branchsim.{h,c}.
**
** Build and run (from the project root):
**   gcc -O2 -g -Wall -Wextra -Icachesim -o test_branchsim \
**       tests/unit/test_branchsim.c tests/unit/port_native.c \
**       cachesim/cachesim.c cachesim/branchsim.c cachesim/l2.c cachesim/streampf.c && ./test_branchsim
**
** One line "PASS <group>" / "FAIL <group>: detail" per group; exit 0 only
** if all passed.  Expectations are derived by hand in the comments.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include <stdio.h>
#include "branchsim.h"

static int failures, group_failed;
static char msg[200];

static void begin(void) { group_failed = 0; }
static void check_at(long got, long want, const char *what, int line)
{
   if (got == want || group_failed)
      return;
   group_failed = 1;
   snprintf(msg, sizeof msg, "%s: got %ld, want %ld (line %d)", what, got,
            want, line);
}
#define CHECK(what, got, want)                         \
  do {                                                 \
      long g_ = (long)(got), w_ = (long)(want);          \
      check_at(g_, w_, what, __LINE__);                  \
   } while (0)
static void end(const char *name)
{
   if (group_failed) {
      printf("FAIL %s: %s\n", name, msg);
      failures++;
   } else {
      printf("PASS %s\n", name);
   }
}

static void test_cond_always_taken(void)
{
   bs_sim *b = bs_new();
   /* One branch at 0x1000 (low 7 address bits 0), always taken.
      History before each branch: 0, 1, 3, 7, 15, 31, 63 -> 7 different
      fresh counters (index = history << 7), all 0 -> predict not-taken:
      7 mispredicts.  From the 8th on, history = 127 (7 takens): counter
      16256 goes 0 -> 1 (8th: mispredict), 1 -> 2 (9th: mispredict),
      then >= 2 predicts taken: 10th, 11th, 12th correct. */
   static const int want[12] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0 };
   int i;

   begin();
   for (i = 0; i < 12; i++)
      CHECK("taken #", bs_cond(b, 0x1000, 1), want[i]);
   CHECK("counter 16256 saturated", b->counters[127 << 7], 3);
   CHECK("counter 0", b->counters[0], 1);
   /* now not taken once: history 127, counter 3 predicts taken -> miss;
      counter -> 2; history = 126 */
   CHECK("first not-taken", bs_cond(b, 0x1000, 0), 1);
   CHECK("counter after", b->counters[127 << 7], 2);
   CHECK("history", b->history & 127, 126);
   bs_delete(b);
   end("cond_always_taken");
}

static void test_cond_not_taken_and_aliasing(void)
{
   bs_sim *b = bs_new();
   int i, miss = 0;

   begin();
   /* never taken: counters start at 0 = predict not-taken -> no miss,
      history stays 0 */
   for (i = 0; i < 20; i++)
      miss += bs_cond(b, 0x4000 + 3 * i, 0);
   CHECK("never taken", miss, 0);
   CHECK("history 0", b->history, 0);
   bs_clear(b);
   /* 0x1005 and 0x1085 share the low 7 bits (0x05): with the same history
      they use the same counter.  Train 0x1005 with history 0 twice:
      taken (miss, counter 1, history 1), then reset history by 7
      not-taken branches elsewhere (0x2000: history -> 0; counter[0x00..]
      untouched at index (h << 7) | 0).  */
   CHECK("train 1", bs_cond(b, 0x1005, 1), 1);       /* c[5] = 1 */
   for (i = 0; i < 7; i++)
      bs_cond(b, 0x2000, 0);                           /* history -> 0 */
   CHECK("hist cleared", b->history & 127, 0);
   CHECK("train 2", bs_cond(b, 0x1085, 1), 1);       /* c[5] 1 -> 2 */
   for (i = 0; i < 7; i++)
      bs_cond(b, 0x2000, 0);
   CHECK("alias predicts taken", bs_cond(b, 0x1005, 1), 0); /* c[5] = 2 */
   CHECK("c[5]", b->counters[5], 3);
   /* any non-zero "taken" counts as taken */
   bs_clear(b);
   CHECK("taken=5", bs_cond(b, 0, 5), 1);
   CHECK("history bit", b->history, 1);
   bs_delete(b);
   end("cond_not_taken_aliasing");
}

static void test_cond_alternating(void)
{
   bs_sim *b = bs_new();
   int i, miss = 0;

   begin();
   /* One branch at 0 alternating T,N,T,N...  The history then is
      ...0101 (after T) or ...1010 (after N), so each outcome gets its own
      counter once the 7-bit history is periodic (from the 8th branch on):
      h = 0b0101010 (42) before T, h = 0b1010101 (85) before N.  First 7
      branches see transient histories 0, 1, 2, 5, 10, 21, 42: the T ones
      (i = 0, 2, 4, 6) miss (fresh counters say not-taken), N ones hit.
      Branch i=6 is T with h=42: counter 42<<7 -> 1.  Then:
        i=7  N  h=85: counter 0 -> predict N: hit
        i=8  T  h=42: counter 1 -> predict N: miss -> 2
        i=10 T  h=42: counter 2 -> taken: hit ... all later hit.
      Mispredicts: i = 0, 2, 4, 6, 8 -> 5 in 40 branches. */
   for (i = 0; i < 40; i++)
      miss += bs_cond(b, 0, (i & 1) == 0);
   CHECK("alternating misses", miss, 5);
   bs_delete(b);
   end("cond_alternating");
}

static void test_indirect(void)
{
   bs_sim *b = bs_new();

   begin();
   /* table starts at 0: a first jump to 0x1234 misses, repeats hit */
   CHECK("first", bs_indirect(b, 0x400, 0x1234), 1);
   CHECK("repeat", bs_indirect(b, 0x400, 0x1234), 0);
   CHECK("new target", bs_indirect(b, 0x400, 0x5678), 1);
   /* 0x600 & 511 == 0x400 & 511 == 0: same entry, remembered 0x5678 */
   CHECK("alias hit", bs_indirect(b, 0x600, 0x5678), 0);
   CHECK("alias miss", bs_indirect(b, 0x600, 0x1234), 1);
   CHECK("back to 0x400", bs_indirect(b, 0x400, 0x5678), 1);
   /* 0x401 is another entry, still 0: a jump to 0 is "predicted" */
   CHECK("zero target", bs_indirect(b, 0x401, 0), 0);
   /* 64-bit targets compare in full */
   CHECK("64-bit", bs_indirect(b, 0x402, 0x100001234ull), 1);
   CHECK("64-bit low half", bs_indirect(b, 0x402, 0x1234), 1);
   bs_clear(b);
   CHECK("cleared", bs_indirect(b, 0x400, 0), 0);
   bs_delete(b);
   end("indirect");
}

int main(void)
{
   test_cond_always_taken();
   test_cond_not_taken_and_aliasing();
   test_cond_alternating();
   test_indirect();
   return failures ? 1 : 0;
}
