/*
** test_sharing.c -- native unit test of cachesim/sharing.c (--sharing=yes).
**
** Build and run (from the project root):
**   gcc -O2 -g -Wall -Wextra -Icachesim -o test_sharing \
**       tests/unit/test_sharing.c tests/unit/port_native.c \
**       cachesim/sharing.c cachesim/cachesim.c cachesim/l2.c cachesim/streampf.c && ./test_sharing
**
** The model's phi, theta and phi' are compared with brute-force versions
** of the formulas (sharing.h) computed from the raw list of accesses:
**   - two threads: the thesis' equations (1) and (2) written out literally,
**     on random counts up to 10^6;
**   - up to four threads: the largest pairing found by exhaustive search
**     over the individual accesses (every access either stays alone or
**     pairs with a later one of another thread, a store among the two),
**     so the closed forms are checked, not restated;
**   - equations (4) and (5): random runs of several segments over a few
**     lines, the boundary events counted from the explicit sets of
**     threads and stores of consecutive segments;
**   - a line's accesses while one thread alone had touched it (kept as
**     a shared history until a second thread comes): the results equal
**     those of a model that counts every access at once, and the loads,
**     stores and code positions of the raw accesses;
**   - accesses handed over in blocks (sh_access_block): the same results
**     as handing them over one by one;
**   - the happens-before edges of thread creation and join: random
**     programs of threads that create, end, join and meet at barriers,
**     their segments found from vector clocks over the whole trace.
** Hand-derived cases first.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sharing.h"
#include "sharing_pack.h"

#include "check.h"

#define LINE 64
#define BASE 0x10000ull

/* ---- hand-derived ------------------------------------------------------------ */

/* The results of the line at addr; a line never shared has none (all
   zero). */
static const sh_line *line_of(sh_model *m, uint64_t addr)
{
   static const sh_line none;
   uint32_t i;

   for (i = 0; i < sh_nlines(m); i++)
      if (sh_line_at(m, i)->line == addr / LINE)
         return sh_line_at(m, i);
   return &none;
}

static int names;

static void *count_names(void *ctx, uint64_t addr)
{
   (void)ctx;
   names++;
   return (void *)(uintptr_t)(addr + 1);
}

static void test_hand(void)
{
   sh_model *m;
   const sh_line *l;
   int i;

   begin();
   /* Figure 4.1(a): thread 0 stores bytes 0 and 1, thread 1 loads bytes 2
      and 3.  Pairs with a store: s0-l1 twice -> M = 2, phi = 3 (the
      thesis' interleaved order 2).  No (offset, size) in common: theta 0. */
   m = sh_new(LINE);
   sh_access(m, 0, BASE + 0, 1, 1, 0x100);
   sh_access(m, 0, BASE + 1, 1, 1, 0x100);
   sh_access(m, 1, BASE + 2, 1, 0, 0x200);
   sh_access(m, 1, BASE + 3, 1, 0, 0x200);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("4.1a phi", l->phi, 3);
   CHECK("4.1a theta", l->theta, 0);
   CHECK("4.1a phi'", sh_phi_prime(l), 3);
   CHECK("4.1a positions", l->npos, 2);
   CHECK("4.1a segments", sh_segments(m), 1);
   CHECK("4.1a threads", sh_nthreads(m), 2);
   {
      const uint32_t *fresh;
      CHECK("4.1a fresh", sh_fresh_shared(m, &fresh), 1);
      CHECK("4.1a fresh line", sh_line_at(m, fresh[0])->line, BASE / LINE);
      sh_access(m, 0, BASE, 1, 1, 0x100);
      sh_access(m, 1, BASE + 4, 1, 1, 0x100);
      sh_access(m, 1, BASE + 64, 1, 1, 0x100);
      sh_end_segment(m);
      CHECK("fresh only once", sh_fresh_shared(m, &fresh), 0);
   }
   sh_delete(m);

   /* Figure 4.2: thread 1 stores (0,4) twice and (8,4) once; thread 0
      loads (0,4) twice, thread 1 loads (8,4)... here: thread 0 stores
      (8,4) once, thread 1 loads (8,4) once.  theta = 2*(2 + 1) = 6.
      phi: S = 4, L = 3; pairs: stores 3 of t1 vs 2 loads of t0, 1 store
      of t0 vs 1 load of t1, 1 store of t1 left -> M = min(4, 3, 3, 4) = 3,
      phi = 5; phi' = max(5 - 6, 0) = 0. */
   m = sh_new(LINE);
   for (i = 0; i < 2; i++) {
      sh_access(m, 1, BASE + 0, 4, 1, 1);
      sh_access(m, 0, BASE + 0, 4, 0, 2);
   }
   sh_access(m, 1, BASE + 4, 4, 1, 1);
   sh_access(m, 0, BASE + 8, 4, 1, 3);
   sh_access(m, 1, BASE + 8, 4, 0, 4);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("4.2 theta", l->theta, 6);
   CHECK("4.2 phi", l->phi, 5);
   CHECK("4.2 phi'", sh_phi_prime(l), 0);
   sh_delete(m);

   /* one thread only: nothing, however much it stores */
   m = sh_new(LINE);
   for (i = 0; i < 100; i++)
      sh_access(m, 3, BASE + (i % 64), 1, i & 1, 7);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("single phi", l->phi, 0);
   CHECK("single theta", l->theta, 0);
   CHECK("single positions", l->npos, 0);
   CHECK("single: no result kept", sh_nlines(m), 0);
   CHECK("single threads", sh_nthreads(m), 1);
   sh_delete(m);

   /* the namer names a line when its second thread comes, once */
   m = sh_new(LINE);
   sh_set_namer(m, count_names, 0);
   names = 0;
   sh_access(m, 1, BASE, 8, 1, 1);
   sh_access(m, 1, BASE + 8, 8, 1, 1);
   CHECK("not named for one thread", names, 0);
   sh_access(m, 2, BASE + 16, 8, 1, 1);
   CHECK("named at the second thread", names, 1);
   sh_access(m, 3, BASE + 16, 8, 1, 1);
   sh_end_segment(m);
   sh_access(m, 1, BASE, 8, 1, 1);
   sh_access(m, 2, BASE, 8, 1, 1);
   sh_end_segment(m);
   CHECK("named once", names, 1);
   CHECK("tag of the line", (long)line_of(m, BASE)->tag, (long)(BASE / LINE * LINE) + 1);
   sh_delete(m);

   /* a read-modify-write is a load and a store: thread 1 modifies (0,8)
      3 times, thread 2 loads and stores it 3 times.  S = 6, N = 12,
      N_t = 6: M = 6, phi = 11; at one (offset, size): M1 = min(L=6, S=6,
      S-S_t + L-L_t = 6) = 6, theta = 12; phi' = 0. */
   m = sh_new(LINE);
   for (i = 0; i < 3; i++) {
      sh_modify(m, 1, BASE, 8, 1);
      sh_access(m, 2, BASE, 8, 0, 2);
      sh_access(m, 2, BASE, 8, 1, 2);
   }
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("modify phi", l->phi, 11);
   CHECK("modify theta", l->theta, 12);
   CHECK("modify loads", l->loads, 6);
   CHECK("modify stores", l->stores, 6);
   sh_delete(m);

   /* loads only by two threads: no store, no pair */
   m = sh_new(LINE);
   sh_access(m, 1, BASE, 8, 0, 1);
   sh_access(m, 2, BASE, 8, 0, 1);
   sh_end_segment(m);
   CHECK("loads phi", line_of(m, BASE)->phi, 0);
   sh_delete(m);

   /* a store straddling two lines counts in both, each with its part:
      8 bytes at offset 60 -> (60,4) in line 0, (0,4) in line 1; thread 1
      loads (0,4) of line 1: a data exchange there (theta 2, phi 1). */
   m = sh_new(LINE);
   sh_access(m, 0, BASE + 60, 8, 1, 1);
   sh_access(m, 1, BASE + 64, 4, 0, 2);
   sh_access(m, 1, BASE + 56, 4, 0, 2);
   sh_end_segment(m);
   CHECK("straddle line0 phi", line_of(m, BASE)->phi, 1);
   CHECK("straddle line0 theta", line_of(m, BASE)->theta, 0);
   CHECK("straddle line1 phi", line_of(m, BASE + 64)->phi, 1);
   CHECK("straddle line1 theta", line_of(m, BASE + 64)->theta, 2);
   sh_delete(m);

   /* barriers: thread 0 stores in segment 1, thread 1 loads in segment
      2: no pair inside a segment, one transfer across (eq. 4 and 5);
      an empty segment in between is not a segment. */
   m = sh_new(LINE);
   sh_access(m, 0, BASE, 4, 1, 1);
   sh_end_segment(m);
   sh_end_segment(m);
   sh_access(m, 1, BASE, 4, 0, 1);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("barrier phi", l->phi, 1);
   CHECK("barrier theta", l->theta, 1);
   CHECK("barrier segments", sh_segments(m), 2);
   {
      const uint32_t *fresh;
      CHECK("barrier: fresh at the transfer", sh_fresh_shared(m, &fresh), 1);
   }
   sh_delete(m);

   /* positions beyond SH_MAX_POS are counted as "other" */
   m = sh_new(LINE);
   for (i = 0; i < SH_MAX_POS + 3; i++) {
      sh_access(m, 0, BASE, 4, 1, 0x1000 + i);
      sh_access(m, 1, BASE + 4, 4, 1, 0x2000);
   }
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("positions kept", l->npos, SH_MAX_POS);
   /* thread 0: 11 positions with 1 access each, thread 1: one position
      with 11.  Counters are folded offset 0 first: 8 of thread 0's fill
      the table, 3 go to "other"; thread 1's 11 then replaces a kept 1. */
   CHECK("positions other", l->other_pos, 4);
   for (i = 0; i < (int)l->npos && l->pos[i].pos != 0x2000; i++)
      ;
   CHECK("biggest position kept", i < (int)l->npos ? l->pos[i].count : 0, SH_MAX_POS + 3);
   sh_delete(m);
   end("hand-derived cases");
}

/* ---- two threads: the thesis' equations literally -------------------------- */

static uint64_t mn(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* equation (1), the "- 1" dropped when there is no pair at all */
static uint64_t thesis_phi(uint64_t S0, uint64_t L0, uint64_t S1, uint64_t L1)
{
   long long rest0 = (long long)S0 - (long long)L1;
   long long rest1 = (long long)S1 - (long long)L0;
   long long part3 = rest0 < rest1 ? rest0 : rest1;
   long long v = 2 * (long long)(mn(S0, L1) + mn(S1, L0))
                 + 2 * (part3 > 0 ? part3 : 0) - 1;
   return v > 0 ? (uint64_t)v : 0;
}

static void test_two_threads(void)
{
   int round;

   begin();
   rng = 12345;
   for (round = 0; round < 200000; round++) {
      uint64_t scale = round % 3 == 0 ? 1000000 : round % 3 == 1 ? 30 : 4;
      uint64_t ld[2], st[2], p;
      ld[0] = rnd(scale); ld[1] = rnd(scale);
      st[0] = rnd(scale); st[1] = rnd(scale);
      p = sh_pairs_any(2, ld, st);
      CHECK("eq (1)", p ? 2 * p - 1 : 0, thesis_phi(st[0], ld[0], st[1], ld[1]));
      CHECK("eq (2) term", sh_pairs_store_load(2, ld, st),
            mn(st[0], ld[1]) + mn(st[1], ld[0]));
   }
   end("two threads: closed forms = the thesis' equations (1), (2)");
}

/* ---- brute force over individual accesses ---------------------------------- */

typedef struct { int tid, off, size, store; } acc;

/* Largest number of disjoint pairs among a[0..n) with used[] marking
   taken accesses; a pair joins two threads and holds a store (if
   same_place, also the same offset and size and exactly one store). */
static int best_pairs(const acc *a, int n, int *used, int same_place)
{
   int i, j, best, v;

   for (i = 0; i < n && used[i]; i++)
      ;
   if (i == n)
      return 0;
   used[i] = 1;
   best = best_pairs(a, n, used, same_place);           /* a[i] alone */
   for (j = i + 1; j < n; j++) {
      if (used[j] || a[j].tid == a[i].tid)
         continue;
      if (same_place) {
         if (a[j].off != a[i].off || a[j].size != a[i].size
             || a[j].store == a[i].store)
            continue;
      } else if (!a[i].store && !a[j].store) {
         continue;
      }
      used[j] = 1;
      v = 1 + best_pairs(a, n, used, same_place);
      if (v > best)
         best = v;
      used[j] = 0;
   }
   used[i] = 0;
   return best;
}

#define MAXA 12

static void random_accesses(acc *a, int n, int threads)
{
   static const int sizes[] = { 1, 2, 4, 8 };
   int i;

   for (i = 0; i < n; i++) {
      a[i].tid = (int)rnd(threads);
      a[i].size = sizes[rnd(4)];
      /* few offsets, so that (offset, size) often match */
      a[i].off = (int)rnd(3) * 8;
      a[i].store = (int)rnd(2);
   }
}

static void test_brute_one_segment(void)
{
   acc a[MAXA];
   int used[MAXA];
   int round, n, threads, i, brute_phi, brute_theta;
   sh_model *m;
   const sh_line *l;

   begin();
   rng = 777;
   for (round = 0; round < 3000; round++) {
      threads = 1 + (int)rnd(4);
      n = 1 + (int)rnd(MAXA);
      random_accesses(a, n, threads);
      m = sh_new(LINE);
      for (i = 0; i < n; i++)
         sh_access(m, a[i].tid, BASE + a[i].off, a[i].size, a[i].store, 1);
      sh_end_segment(m);
      l = line_of(m, BASE);
      memset(used, 0, sizeof(used));
      brute_phi = best_pairs(a, n, used, 0);
      brute_phi = brute_phi ? 2 * brute_phi - 1 : 0;
      brute_theta = 2 * best_pairs(a, n, used, 1);
      CHECK("phi", l->phi, brute_phi);
      CHECK("theta", l->theta, brute_theta);
      CHECK("phi'", sh_phi_prime(l),
            brute_phi > brute_theta ? brute_phi - brute_theta : 0);
      sh_delete(m);
   }
   end("one segment, 1-4 threads: phi, theta, phi' = exhaustive pairing");
}

/* ---- several segments: equations (4) and (5) ------------------------------- */

#define NSEG 6
#define NLINES 3

static void test_brute_segments(void)
{
   acc a[NSEG][NLINES][MAXA];
   int na[NSEG][NLINES];
   int used[MAXA];
   int round, s, k, i, j, threads, nseg, seg_of[NSEG];
   long long phi[NLINES], theta[NLINES];
   sh_model *m;
   const sh_line *l;

   begin();
   rng = 4242;
   for (round = 0; round < 1000; round++) {
      threads = 1 + (int)rnd(3);
      m = sh_new(LINE);
      memset(phi, 0, sizeof(phi));
      memset(theta, 0, sizeof(theta));
      for (s = 0; s < NSEG; s++) {
         for (k = 0; k < NLINES; k++) {
            /* a line is often untouched by a segment */
            na[s][k] = rnd(3) == 0 ? 0 : (int)rnd(7);
            random_accesses(a[s][k], na[s][k], threads);
         }
         /* feed the segment interleaved over lines */
         for (i = 0; i < MAXA; i++)
            for (k = 0; k < NLINES; k++)
               if (i < na[s][k])
                  sh_access(m, a[s][k][i].tid, BASE + k * LINE + a[s][k][i].off,
                            a[s][k][i].size, a[s][k][i].store, 1);
         sh_end_segment(m);
      }
      /* a segment in which no line was touched is no segment at all:
         adjacency is over the non-empty ones */
      nseg = 0;
      for (s = 0; s < NSEG; s++)
         if (na[s][0] || na[s][1] || na[s][2])
            seg_of[nseg++] = s;
      for (k = 0; k < NLINES; k++) {
         for (j = 0; j < nseg; j++) {
            int p, cur = seg_of[j], prev = j ? seg_of[j - 1] : -1;
            if (na[cur][k] == 0)
               continue;
            memset(used, 0, sizeof(used));
            p = best_pairs(a[cur][k], na[cur][k], used, 0);
            phi[k] += p ? 2 * p - 1 : 0;
            theta[k] += 2 * best_pairs(a[cur][k], na[cur][k], used, 1);
            if (prev >= 0 && na[prev][k]) {
               int tmask = 0, stored = 0;
               for (i = 0; i < na[prev][k]; i++) {
                  tmask |= 1 << a[prev][k][i].tid;
                  stored |= a[prev][k][i].store;
               }
               for (i = 0; i < na[cur][k]; i++) {
                  tmask |= 1 << a[cur][k][i].tid;
                  stored |= a[cur][k][i].store;
               }
               if (__builtin_popcount(tmask) >= 2 && stored) {
                  phi[k]++;
                  theta[k]++;
               }
            }
         }
      }
      for (k = 0; k < NLINES; k++) {
         l = line_of(m, BASE + k * LINE);
         CHECK("phi over segments", l->phi, phi[k]);
         CHECK("theta over segments", l->theta, theta[k]);
      }
      sh_delete(m);
   }
   end("segments: equations (4), (5) = brute force");
}

/* ---- happens-before of thread creation and join: by hand -------------------- */

/* n accesses of thread t to (offset, 8 bytes) of the line at BASE */
static void accesses(sh_model *m, uint32_t t, int off, int n, int store)
{
   int i;

   for (i = 0; i < n; i++)
      sh_access(m, t, BASE + off, 8, store, 0x100 + t);
}

static void test_fork_join_hand(void)
{
   sh_model *m;
   const sh_line *l;

   begin();
   /* creation: main (1) stores word 0 100 times, then creates 2, which
      stores word 1 100 times.  Without the edge one segment: M = min(200,
      100, 100, 100) = 100, phi = 199.  With it, main ran alone: the
      segment ends at the creation, no transfer across a fork: each
      segment has one thread, the line is never shared. */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   accesses(m, 1, 0, 100, 1);
   CHECK("create: cut", sh_thread_created(m, 1, 2), 1);
   accesses(m, 2, 8, 100, 1);
   sh_end_segment(m);
   CHECK("create: no line shared", sh_nlines(m), 0);
   CHECK("create: segments", sh_segments(m), 2);
   sh_delete(m);

   /* creation while another thread runs orders too little: 1 creates 2
      (nothing before: no segment), 2 stores word 1 10 times, 1 word 0 10
      times, 1 creates 3 (2 runs: no cut), 3 stores word 2 10 times.  One
      segment: S = N = 30, N_t = 10: M = min(30, 15, 20) = 15, phi = 29,
      no common (offset, size): theta = 0. */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   CHECK("create, empty: no segment", sh_thread_created(m, 1, 2), 1);
   accesses(m, 2, 8, 10, 1);
   accesses(m, 1, 0, 10, 1);
   CHECK("create beside another: no cut", sh_thread_created(m, 1, 3), 0);
   accesses(m, 3, 16, 10, 1);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("create beside: phi", l->phi, 29);
   CHECK("create beside: theta", l->theta, 0);
   CHECK("create beside: segments", sh_segments(m), 1);
   sh_delete(m);

   /* join: 1 creates 2 and 3, which store words 1 and 2 10 times each and
      end.  1 joins 2 (3 is unjoined: no cut), loads word 0 5 times, joins
      3: now it has joined all: cut; it stores word 0 5 times after.
      First segment: S = 20, N = 25, N_t = 10, 10, 5: M = min(20, 12, 15,
      15, 20) = 12, phi = 23, theta 0; the second has one thread and no
      transfer across the join: phi 23, theta 0 in all. */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   sh_thread_created(m, 1, 2);
   sh_thread_created(m, 1, 3);
   accesses(m, 2, 8, 10, 1);
   accesses(m, 3, 16, 10, 1);
   sh_thread_exited(m, 2);
   sh_thread_exited(m, 3);
   CHECK("join, one left: no cut", sh_thread_joined(m, 1, 2), 0);
   accesses(m, 1, 0, 5, 0);
   CHECK("join, all joined: cut", sh_thread_joined(m, 1, 3), 1);
   accesses(m, 1, 0, 5, 1);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("join: phi", l->phi, 23);
   CHECK("join: theta", l->theta, 0);
   CHECK("join: segments", sh_segments(m), 2);
   sh_delete(m);

   /* an ended thread nobody joined (detached) is not ordered before the
      joiner: no cut, its stores pair with main's after the join: 2 and 3
      store 1 each, main joins 3 only and stores word 0 once: S = N = 3:
      M = min(3, 1, 2) = 1, phi = 1 */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   sh_thread_created(m, 1, 2);
   sh_thread_created(m, 1, 3);
   accesses(m, 2, 8, 1, 1);
   accesses(m, 3, 16, 1, 1);
   sh_thread_exited(m, 2);
   sh_thread_exited(m, 3);
   CHECK("detached: no cut", sh_thread_joined(m, 1, 3), 0);
   accesses(m, 1, 0, 1, 1);
   sh_end_segment(m);
   CHECK("detached: phi", line_of(m, BASE)->phi, 1);
   sh_delete(m);

   /* transitive: 1 creates 2, 2 creates 3 (1 runs: no cut), 3 stores and
      ends, 2 joins it (1 runs: no cut), stores and ends; 1 joins 2 and
      with it what 2 joined: cut */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   sh_thread_created(m, 1, 2);
   CHECK("nested create: no cut", sh_thread_created(m, 2, 3), 0);
   accesses(m, 3, 16, 1, 1);
   sh_thread_exited(m, 3);
   CHECK("nested join: no cut", sh_thread_joined(m, 2, 3), 0);
   accesses(m, 2, 8, 1, 1);
   sh_thread_exited(m, 2);
   CHECK("transitive join: cut", sh_thread_joined(m, 1, 2), 1);
   sh_delete(m);

   /* a new thread inherits what its creator joined: 1 creates 2 and 3, 2
      stores and ends, 1 joins 2 (3 runs: no cut), creates 4 and ends
      without accessing; 3 ends, 4 joins 3: 4 runs alone, and 2's store
      happens before it through 1's join and creation: cut */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   sh_thread_created(m, 1, 2);
   sh_thread_created(m, 1, 3);
   accesses(m, 2, 8, 1, 1);
   sh_thread_exited(m, 2);
   CHECK("inherit: join beside 3", sh_thread_joined(m, 1, 2), 0);
   CHECK("inherit: create beside 3", sh_thread_created(m, 1, 4), 0);
   sh_thread_exited(m, 1);
   sh_thread_exited(m, 3);
   CHECK("inherit: cut", sh_thread_joined(m, 4, 3), 1);
   sh_delete(m);

   /* a barrier after a fork keeps its transfer, the fork has none: main
      stores word 0, creates 2 (cut), 2 stores word 1, barrier, main loads
      word 0.  Three segments of one thread each; 2 -> 3 across the
      barrier: phi = theta = 1; 1 -> 2 across the fork: nothing. */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   accesses(m, 1, 0, 1, 1);
   sh_thread_created(m, 1, 2);
   accesses(m, 2, 8, 1, 1);
   sh_end_segment(m);
   accesses(m, 1, 0, 1, 0);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("fork then barrier: phi", l->phi, 1);
   CHECK("fork then barrier: theta", l->theta, 1);
   sh_delete(m);

   /* an id reused while its earlier thread's work is unjoined: joining the
      new thread of the id must not cut (2 stores, ends unjoined; 2 again,
      ends, joined) */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   sh_thread_created(m, 1, 2);
   accesses(m, 2, 8, 1, 1);
   sh_thread_exited(m, 2);
   sh_thread_created(m, 1, 2);
   sh_thread_exited(m, 2);
   CHECK("reused id: no cut", sh_thread_joined(m, 1, 2), 0);
   sh_delete(m);

   /* ids above 63 share bits: no fork/join cut */
   m = sh_new(LINE);
   sh_thread_created(m, SH_NO_THREAD, 1);
   accesses(m, 1, 0, 1, 1);
   CHECK("id 70: no cut", sh_thread_created(m, 1, 70), 0);
   sh_delete(m);

   /* a fork/join cut of a parallel region (sh_end_fork_join): no transfer
      across it; a barrier (sh_end_segment) counts one */
   m = sh_new(LINE);
   accesses(m, 1, 0, 1, 1);
   sh_end_fork_join(m);
   accesses(m, 2, 8, 1, 1);
   sh_end_segment(m);
   CHECK("region start: no transfer", sh_nlines(m), 0);
   sh_delete(m);
   end("fork and join: hand-derived cases");
}

/* ---- happens-before: random fork/join programs against brute force -------- */

/* A random program of up to HB_T threads (ids 1.., never reused) that
   create, end, join ended threads (mostly their own children) and meet
   at barriers, accessing
   HB_LINES lines.  Every thread accesses memory when it starts, before it
   ends, after each of its creations and joins and after each barrier,
   so that an edge that does not order all of a segment before all that
   follows is contradicted by an access near it.

   The reference: vector clocks over the whole trace; a creation or join
   at trace position p ends the segment iff every access of the segment
   so far happens before every access after p up to the next barrier
   (pairs across a barrier are in different segments anyway); barriers
   always end it.  phi and theta per segment by exhaustive pairing; the
   transfer of equations (4)/(5) between consecutive non-empty segments
   only if the cut after the first was a barrier. */
#define HB_T 6
#define HB_LINES 3
#define HB_MAXEV 26
enum { EV_ACC, EV_CREATE, EV_EXIT, EV_JOIN, EV_BARRIER };
typedef struct { int kind, t, u; acc a; int line; } hb_ev;
typedef struct { int n; hb_ev ev[HB_MAXEV + 16]; } hb_prog;

static void hb_push(hb_prog *p, int kind, int t, int u)
{
   hb_ev *e = &p->ev[p->n++];
   static const int sizes[] = { 4, 8 };

   e->kind = kind;
   e->t = t;
   e->u = u;
   e->line = (int)rnd(HB_LINES);
   e->a.tid = t;
   e->a.size = sizes[rnd(2)];
   e->a.off = (int)rnd(3) * 8;
   e->a.store = (int)rnd(2);
}

static void hb_generate(hb_prog *p)
{
   int live[HB_T + 1] = { 0 }, parent[HB_T + 1] = { 0 }, joinable[HB_T + 1] = { 0 };
   int nthreads = 1, t, c, k;

   p->n = 0;
   live[1] = 1;
   hb_push(p, EV_ACC, 1, 0);
   while (p->n < HB_MAXEV) {
      do t = 1 + (int)rnd(nthreads); while (!live[t]);
      switch (rnd(8)) {
      case 0:                                   /* create */
         if (nthreads == HB_T) break;
         c = ++nthreads;
         parent[c] = t;
         live[c] = 1;
         hb_push(p, EV_CREATE, t, c);
         if (rnd(2)) { hb_push(p, EV_ACC, c, 0); hb_push(p, EV_ACC, t, 0); }
         else { hb_push(p, EV_ACC, t, 0); hb_push(p, EV_ACC, c, 0); }
         break;
      case 1:                                   /* end (not the first) */
         if (t == 1) break;
         hb_push(p, EV_ACC, t, 0);
         hb_push(p, EV_EXIT, t, 0);
         live[t] = 0;
         joinable[t] = rnd(4) != 0;             /* some are never joined */
         break;
      case 2:                                   /* join an ended thread */
         for (c = 2; c <= nthreads; c++)
            if (!live[c] && joinable[c] && (parent[c] == t || rnd(2)))
               break;
         if (c > nthreads) break;
         joinable[c] = 0;
         hb_push(p, EV_JOIN, t, c);
         hb_push(p, EV_ACC, t, 0);
         break;
      case 3:                                   /* barrier, rarely */
         if (rnd(3)) break;
         hb_push(p, EV_BARRIER, 0, 0);
         for (k = 1; k <= nthreads; k++)
            if (live[k])
               hb_push(p, EV_ACC, k, 0);
         break;
      default:
         hb_push(p, EV_ACC, t, 0);
      }
   }
}

/* Vector clocks: vc[i] is the clock of the thread of event i (accesses
   only) when it made it. */
static void hb_clocks(const hb_prog *p, int vc[][HB_T + 1])
{
   int cur[HB_T + 1][HB_T + 1] = { { 0 } };
   int i, k;

   cur[1][1] = 1;
   for (i = 0; i < p->n; i++) {
      const hb_ev *e = &p->ev[i];
      switch (e->kind) {
      case EV_ACC:
         memcpy(vc[i], cur[e->t], sizeof cur[0]);
         break;
      case EV_CREATE:
         memcpy(cur[e->u], cur[e->t], sizeof cur[0]);
         cur[e->u][e->u] = 1;
         cur[e->t][e->t]++;
         break;
      case EV_JOIN:
         for (k = 1; k <= HB_T; k++)
            if (cur[e->u][k] > cur[e->t][k])
               cur[e->t][k] = cur[e->u][k];
         break;
      }
   }
}

static int hb_before(const hb_prog *p, int vc[][HB_T + 1], int a, int b)
{
   int t = p->ev[a].t;

   return t == p->ev[b].t ? a < b : vc[a][t] <= vc[b][t];
}

/* does the creation or join at position i end the segment that began at
   position from? */
static int hb_cuts(const hb_prog *p, int vc[][HB_T + 1], int from, int i)
{
   int a, b;

   for (a = from; a < i; a++) {
      if (p->ev[a].kind != EV_ACC)
         continue;
      for (b = i + 1; b < p->n && p->ev[b].kind != EV_BARRIER; b++)
         if (p->ev[b].kind == EV_ACC && !hb_before(p, vc, a, b))
            return 0;
   }
   return 1;
}

typedef struct {
   acc a[HB_LINES][HB_MAXEV];
   int n[HB_LINES];
   int after_barrier;            /* the cut that ended it was a barrier */
} hb_seg;

static void hb_close(hb_seg *segs, int *nseg, hb_seg *cur, int barrier)
{
   int k, any = 0;

   for (k = 0; k < HB_LINES; k++)
      any |= cur->n[k];
   if (!any)
      return;
   cur->after_barrier = barrier;
   segs[(*nseg)++] = *cur;
   memset(cur, 0, sizeof *cur);
}

static void hb_expect(const hb_prog *p, long long *phi, long long *theta)
{
   static int vc[HB_MAXEV + 16][HB_T + 1];
   static hb_seg segs[HB_MAXEV], cur;
   int used[HB_MAXEV];
   int i, k, s, from = 0, nseg = 0, pairs;

   hb_clocks(p, vc);
   memset(&cur, 0, sizeof cur);
   for (i = 0; i < p->n; i++) {
      const hb_ev *e = &p->ev[i];
      if (e->kind == EV_ACC) {
         cur.a[e->line][cur.n[e->line]++] = e->a;
      } else if (e->kind == EV_BARRIER
                 || ((e->kind == EV_CREATE || e->kind == EV_JOIN)
                     && hb_cuts(p, vc, from, i))) {
         hb_close(segs, &nseg, &cur, e->kind == EV_BARRIER);
         from = i + 1;
      }
   }
   hb_close(segs, &nseg, &cur, 0);
   for (k = 0; k < HB_LINES; k++) {
      phi[k] = theta[k] = 0;
      for (s = 0; s < nseg; s++) {
         const hb_seg *g = &segs[s];
         if (!g->n[k])
            continue;
         memset(used, 0, sizeof used);
         pairs = best_pairs(g->a[k], g->n[k], used, 0);
         phi[k] += pairs ? 2 * pairs - 1 : 0;
         theta[k] += 2 * best_pairs(g->a[k], g->n[k], used, 1);
         if (s > 0 && segs[s - 1].after_barrier && segs[s - 1].n[k]) {
            int tmask = 0, stored = 0;
            for (i = 0; i < segs[s - 1].n[k]; i++) {
               tmask |= 1 << segs[s - 1].a[k][i].tid;
               stored |= segs[s - 1].a[k][i].store;
            }
            for (i = 0; i < g->n[k]; i++) {
               tmask |= 1 << g->a[k][i].tid;
               stored |= g->a[k][i].store;
            }
            if (__builtin_popcount(tmask) >= 2 && stored) {
               phi[k]++;
               theta[k]++;
            }
         }
      }
   }
}

static void hb_feed(sh_model *m, const hb_prog *p)
{
   int i;

   sh_thread_created(m, SH_NO_THREAD, 1);
   for (i = 0; i < p->n; i++) {
      const hb_ev *e = &p->ev[i];
      switch (e->kind) {
      case EV_ACC:
         sh_access(m, e->t, BASE + e->line * LINE + e->a.off, e->a.size,
                   e->a.store, 1);
         break;
      case EV_CREATE:  sh_thread_created(m, e->t, e->u); break;
      case EV_EXIT:    sh_thread_exited(m, e->t); break;
      case EV_JOIN:    sh_thread_joined(m, e->t, e->u); break;
      case EV_BARRIER: sh_end_segment(m); break;
      }
   }
   sh_end_segment(m);
}

static void test_fork_join_brute(void)
{
   static hb_prog p;
   long long phi[HB_LINES], theta[HB_LINES];
   int round, k, cuts = 0, i;
   sh_model *m;

   begin();
   rng = 4711;
   for (round = 0; round < 600; round++) {
      hb_generate(&p);
      hb_expect(&p, phi, theta);
      m = sh_new(LINE);
      hb_feed(m, &p);
      for (k = 0; k < HB_LINES; k++) {
         CHECK("fork/join phi", line_of(m, BASE + k * LINE)->phi, phi[k]);
         CHECK("fork/join theta", line_of(m, BASE + k * LINE)->theta, theta[k]);
      }
      for (i = 0; i < p.n; i++)
         cuts += p.ev[i].kind == EV_BARRIER;
      cuts += (int)sh_segments(m);
      sh_delete(m);
   }
   /* the programs do cut (not a vacuous check) */
   CHECK("some segments", cuts > 600, 1);
   end("fork and join: random programs = vector-clock brute force");
}

/* ---- many lines: the tables grow ----------------------------------------- */

/* ---- one-thread histories: the first thread's accesses kept ----------------- */

#define HL 4            /* lines */
#define HPOS 12         /* code positions: more than SH_MAX_POS */
#define HSEG 4

/* Two results alike field by field (the tag aside). */
static int same_line(const sh_line *a, const sh_line *b)
{
   uint32_t i;

   if (a->line != b->line || a->phi != b->phi || a->theta != b->theta
       || a->loads != b->loads || a->stores != b->stores
       || a->other_pos != b->other_pos || a->npos != b->npos
       || a->first_shared != b->first_shared)
      return 0;
   for (i = 0; i < a->npos; i++)
      if (a->pos[i].pos != b->pos[i].pos || a->pos[i].count != b->pos[i].count)
         return 0;
   return 1;
}

/* Random segments over a few lines, each line's accesses by one thread
   for a while before others come (the stencil's case: the history is
   all a second thread finds), fed to six models: every access counted
   at once (history budget 1, nothing packed: what the model did before
   it kept histories); the first thread's accesses packed from the first
   on, with counts and sites limited to 2 (so lines leave the packed form
   for counters in the middle) and with the default limits; a budget of
   6 nodes (histories leave the trie in the middle) with packed limits of
   3; the defaults; counted at once with counters that hold at most 2
   (the rest carried, as 2^32 - 1 does in a run).  Their results must be alike in every field, the code
   positions in the same order; and, against the raw accesses, a shared
   segment's loads and stores all counted, a line's positions (when at
   most SH_MAX_POS) with their exact counts. */
#define HM 6
static void test_histories(void)
{
   static const uint32_t limits[HM] = { 1, 1, 1, 6, 1, 0 };
   static const uint32_t packed[HM] = { 0, 2, 255, 3, 0, 255 };
   static const uint32_t count_limit[HM] = { 0, 0, 0, 0, 2, 0 };
   sh_model *m[HM];
   uint64_t ld[HL], st[HL], per_pos[HL][HPOS];
   int round, s, k, i, n, first, threads, shared, places, bad = 0, exact = 0;
   uint32_t v, j, npos;

   begin();
   rng = 3131;
   for (round = 0; round < 400; round++) {
      threads = 2 + (int)rnd(3);
      places = 3 + (int)rnd(HPOS - 2);     /* code positions of the round */
      for (v = 0; v < HM; v++) {
         m[v] = sh_new(LINE);
         sh_set_history_limit(m[v], limits[v]);
         sh_set_packed_limits(m[v], packed[v], packed[v]);
         sh_set_count_limit(m[v], count_limit[v]);
      }
      memset(ld, 0, sizeof ld);
      memset(st, 0, sizeof st);
      memset(per_pos, 0, sizeof per_pos);
      for (s = 0; s < HSEG; s++) {
         for (k = 0; k < HL; k++) {
            /* the first thread alone for `first` accesses, then anyone */
            uint32_t t0 = (uint32_t)rnd(threads), t;
            uint64_t sl = 0, ss = 0, sp[HPOS] = { 0 };
            int tmask = 0;
            n = (int)rnd(30);
            first = n ? (int)rnd(n + 1) : 0;
            for (i = 0; i < n; i++) {
               int off = (int)rnd(8) * 8, p = (int)rnd(places), store = (int)rnd(3) == 0;
               t = i < first ? t0 : (uint32_t)rnd(threads);
               tmask |= 1 << t;
               for (v = 0; v < HM; v++)
                  sh_access(m[v], t, BASE + k * LINE + off, 8, store, 0x1000 + p);
               *(store ? &ss : &sl) += 1;
               sp[p]++;
            }
            if (__builtin_popcount(tmask) >= 2) {
               ld[k] += sl;
               st[k] += ss;
               for (i = 0; i < HPOS; i++)
                  per_pos[k][i] += sp[i];
            }
         }
         for (v = 0; v < HM; v++)
            sh_end_segment(m[v]);
      }
      for (v = 1; v < HM; v++) {
         if (sh_nlines(m[v]) != sh_nlines(m[0]))
            bad++;
         for (j = 0; j < sh_nlines(m[0]) && j < sh_nlines(m[v]); j++)
            if (!same_line(sh_line_at(m[0], j), sh_line_at(m[v], j)))
               bad++;
      }
      for (k = 0; k < HL; k++) {
         const sh_line *l = line_of(m[HM - 1], BASE + k * LINE);
         CHECK("loads of shared segments", l->loads, ld[k]);
         CHECK("stores of shared segments", l->stores, st[k]);
         for (i = 0, npos = 0; i < HPOS; i++)
            npos += per_pos[k][i] != 0;
         if (npos > SH_MAX_POS)
            continue;
         exact++;
         shared = l->npos == npos;
         for (j = 0; j < l->npos; j++)
            shared &= l->pos[j].count == per_pos[k][l->pos[j].pos - 0x1000];
         CHECK("positions with their exact counts", shared, 1);
      }
      for (v = 0; v < HM; v++)
         sh_delete(m[v]);
   }
   CHECK("results alike with and without histories", bad, 0);
   if (exact < 100)
      CHECK("lines whose positions were checked", exact, 100);
   end("histories: the first thread's accesses reach the counters");
}

/* ---- the order of a line's code positions ------------------------------------ */

/* A line's positions and touched bytes come in a canonical order: its
   counts sorted by offset, size, thread, kind (load before store), then
   the position's address; a position is listed where its first count
   comes.  The accesses below (thread, offset, size, kind, position) sort
   to
     off 0 size 4  thread 2 load   0x3000
     off 0 size 8  thread 1 load   0x3002
     off 0 size 8  thread 2 store  0x3001
     off 8 size 8  thread 1 load   0x3003
     off 16 size 8 thread 1 load   0x3004, then 0x3005 (the address)
   so positions and touches in that order, whichever order the accesses
   came in: fed forwards and backwards, to a model that counts at once
   and to one that keeps histories and packs. */
#define ORD 6
static void test_canonical_order(void)
{
   static const struct { uint32_t tid, off, size, store; uint64_t pos; } acc[ORD] = {
      { 1, 16, 8, 0, 0x3005 }, { 1, 8, 8, 0, 0x3003 }, { 2, 0, 8, 1, 0x3001 },
      { 1, 0, 8, 0, 0x3002 }, { 1, 16, 8, 0, 0x3004 }, { 2, 0, 4, 0, 0x3000 },
   };
   static const uint64_t want_pos[ORD] = { 0x3000, 0x3002, 0x3001, 0x3003, 0x3004, 0x3005 };
   static const uint32_t want_tid[ORD] = { 2, 1, 2, 1, 1, 1 };
   uint32_t limit, backwards, i, k, tid;
   uint64_t pos;
   const uint64_t *ld, *st;

   begin();
   for (limit = 0; limit < 2; limit++)
      for (backwards = 0; backwards < 2; backwards++) {
         sh_model *m = sh_new(LINE);
         const sh_line *l;
         sh_set_history_limit(m, limit);
         for (i = 0; i < ORD; i++) {
            k = backwards ? ORD - 1 - i : i;
            /* thread 1's accesses first: a history, then a second thread */
            if (acc[k].tid == 1)
               sh_access(m, 1, BASE + acc[k].off, acc[k].size, (int)acc[k].store, acc[k].pos);
         }
         for (i = 0; i < ORD; i++) {
            k = backwards ? ORD - 1 - i : i;
            if (acc[k].tid == 2)
               sh_access(m, 2, BASE + acc[k].off, acc[k].size, (int)acc[k].store, acc[k].pos);
         }
         sh_end_segment(m);
         l = line_of(m, BASE);
         CHECK("positions", l->npos, ORD);
         for (i = 0; i < l->npos && i < ORD; i++)
            CHECK("position in the canonical order", l->pos[i].pos, want_pos[i]);
         CHECK("touches", sh_touches(l), ORD);
         for (i = 0; i < sh_touches(l) && i < ORD; i++) {
            sh_touch_at(m, l, i, &pos, &tid, &ld, &st);
            CHECK("touch in the canonical order", pos, want_pos[i]);
            CHECK("touch's thread", tid, want_tid[i]);
         }
         sh_delete(m);
      }
   end("canonical order of a line's positions and touches");
}

/* ---- packed one-thread counts: where they leave the packed form ------------- */

/* The first thread's accesses as a packed record hits its limits: one
   key counted 600 times (8-bit counts: past 255 the line goes to
   counters), 300 code positions on one line (past 127 sites), and two
   thread ids alike but for bit 6 and above (1 and 65: one owner in the
   line's record, two threads in the keys).  Fed to a model that packs
   from the first access (history budget 1) and to one that never packs;
   then a second thread comes.  Results alike in every field, and by
   hand: loads, stores, phi and theta. */
static void feed_packed_case(sh_model *m, int c)
{
   int i;

   if (c == 0) {
      for (i = 0; i < 600; i++)
         sh_access(m, 1, BASE, 8, 0, 0x5000);            /* 600 loads, offset 0 */
      for (i = 0; i < 300; i++)
         sh_access(m, 1, BASE + 8, 8, 1, 0x5001);        /* 300 stores, offset 8 */
      sh_access(m, 2, BASE + 8, 8, 0, 0x5002);           /* a load of thread 2 */
   } else if (c == 1) {
      for (i = 0; i < 300; i++)
         sh_access(m, 1, BASE + (uint64_t)(i % 8) * 8, 8, i % 3 == 0, 0x6000 + (uint64_t)i);
      sh_access(m, 2, BASE, 8, 0, 0x5002);
   } else {
      for (i = 0; i < 5; i++)
         sh_access(m, 1, BASE, 8, 1, 0x5000);
      sh_access(m, 65, BASE + 8, 8, 1, 0x5001);
      sh_access(m, 2, BASE, 8, 0, 0x5002);
   }
   sh_end_segment(m);
}

static void test_packed(void)
{
   /* loads, stores, phi, theta of each case, by hand */
   static const uint64_t want[3][4] = {
      { 601, 300, 1, 2 },      /* M = min(S 300, N/2, N - N_2 = 900, N - N_1 = 1) */
      { 201, 100, 1, 2 },      /* positions i = 0 mod 3 store: 100 stores, 200 loads;
                                  thread 2's load at offset 0 meets 13 stores there */
      { 1, 6, 3, 2 },          /* 1 and 65 one owner, two threads in the keys (and
                                  the formulas): S 6, N 7, N - N_1 = 2, so M = 2 */
   };
   sh_model *packs, *plain;
   const sh_line *a, *b;
   int c;

   begin();
   for (c = 0; c < 3; c++) {
      packs = sh_new(LINE);
      plain = sh_new(LINE);
      sh_set_history_limit(packs, 1);
      sh_set_history_limit(plain, 1);
      sh_set_packed_limits(plain, 0, 0);
      feed_packed_case(packs, c);
      feed_packed_case(plain, c);
      a = line_of(packs, BASE);
      b = line_of(plain, BASE);
      CHECK("packed and counted alike", same_line(a, b), 1);
      CHECK("loads", a->loads, want[c][0]);
      CHECK("stores", a->stores, want[c][1]);
      CHECK("phi", a->phi, want[c][2]);
      CHECK("theta", a->theta, want[c][3]);
      CHECK("the packed record went to counters", sh_get_stats(packs).packed, 1);
      sh_delete(packs);
      sh_delete(plain);
   }
   end("packed counts: past 255, past 127 sites, thread ids alike mod 64");
}

/* ---- the packed store: records that grow, move and go -------------------------- */

/* Many records of a store (sharing_pack.h) counted at random, side by
   side, so that they grow and leave space behind, some freed, new ones
   made all along (compacting the store, also between counts: sp_tidy),
   some counted in bursts (the last record of a chunk grows in place):
   each record's counts, read back
   with sp_each, must be what was counted, per site and offset; counts
   past 15 (4 bits) and lines of 256 bytes (four words of offsets) too. */
#define PR 3000
#define PS 5
static uint32_t pack_ref[PR];
static uint16_t pack_want[PR][PS][256];

static void pack_moved_to(void *ctx, uint32_t owner, uint32_t ref)
{
   (void)ctx;
   pack_ref[owner] = ref;
}

static uint32_t pack_rec_of_read;
static int pack_mismatch;

static void pack_check(void *ctx, uint32_t tid, const sp_site *s, uint32_t off,
                       uint32_t count)
{
   uint16_t (*seen)[256] = ctx;

   (void)tid;
   if (s->pos_id >= PS || s->kinds != 1 || s->size != 8
       || pack_want[pack_rec_of_read][s->pos_id][off] != count)
      pack_mismatch++;
   else
      seen[s->pos_id][off] = 1;
}

static void test_pack_store(void)
{
   static const uint32_t lines[2] = { 64, 256 };
   sp_store st;
   uint16_t seen[PS][256];
   uint32_t L, i, k, r, o, p, made, alive[PR], last = 0, burst = 0;
   int step, bad;

   begin();
   rng = 5151;
   for (L = 0; L < 2; L++) {
      sp_init(&st, lines[L], pack_moved_to, 0);
      memset(pack_want, 0, sizeof pack_want);
      made = 0;
      bad = 0;
      burst = 0;
      for (step = 0; step < 400000; step++) {
         if (step % 64 == 63)
            sp_tidy(&st);               /* records move between counts too */
         if (made < PR && (made == 0 || rnd(100) == 0)) {
            pack_ref[made] = sp_new(&st, 7, made);
            alive[made++] = 1;
            continue;
         }
         if (burst) {                   /* the same record again: it */
            r = last;                   /* grows in place */
            burst--;
         } else {
            r = last = rnd(made);
            burst = rnd(20) == 0 ? 60 : 0;
         }
         if (!alive[r])
            continue;
         if (rnd(3000) == 0) {
            sp_free(&st, pack_ref[r]);
            alive[r] = 0;
            continue;
         }
         p = rnd(PS);
         o = rnd(lines[L] / 8) * 8 + rnd(2);
         {
            sp_site s = { p, 8, 1 };
            int got = sp_count(&st, &pack_ref[r], 7, &s, o);
            if (pack_want[r][p][o] == SP_MAX_COUNT)
               bad += got != 0;
            else if (!got)
               bad++;
            else
               pack_want[r][p][o]++;
         }
      }
      CHECK("counted where it fits, refused past 255", bad, 0);
      CHECK("the store compacted", st.compactions > 0, 1);
      CHECK("records grew in place and moved",
            st.grows_in_place > 0 && st.grows_in_place < st.grows, 1);
      sp_tidy(&st);
      CHECK("space left under a fifth once tidied",
            st.left < (1u << 18) || st.left * 5 < st.bytes, 1);
      for (r = 0; r < made; r++) {
         if (!alive[r])
            continue;
         memset(seen, 0, sizeof seen);
         pack_rec_of_read = r;
         sp_each(&st, pack_ref[r], pack_check, seen);
         for (p = 0; p < PS; p++)
            for (k = 0; k < lines[L]; k++)
               if (!seen[p][k] && pack_want[r][p][k])
                  pack_mismatch++;
      }
      CHECK("every count read back", pack_mismatch, 0);
      {
         sp_site s = { 0, 8, 1 };
         for (i = 0; i < made && !alive[i]; i++)
            ;
         CHECK("another thread refused", sp_count(&st, &pack_ref[i], 8, &s, 0), 0);
      }
      sp_fini(&st);
   }
   end("packed store: records grow, move, go; counts read back");
}

/* ---- accesses handed over in blocks ------------------------------------------ */

/* The namers of test_blocks: how many lines each model has named. */
static uint32_t named_one, named_blk;
static void *name_one(void *ctx, uint64_t addr)
{
   (void)ctx; (void)addr;
   named_one++;
   return 0;
}
static void *name_blk(void *ctx, uint64_t addr)
{
   (void)ctx; (void)addr;
   named_blk++;
   return 0;
}

/* A run of accesses as loops make them (threads sweeping lines with the
   same positions, offsets and kinds, the case sh_access_block's short
   path takes), with random ones mixed in (read-modify-writes, accesses
   across a line's end, a second thread on a line, skipped accesses), fed
   to one model access by access (sh_access, sh_modify) and to another in
   blocks of random length (sh_access_block), some of hundreds of
   accesses, with accesses handed over alone (sh_access, sh_modify),
   cuts and thread events between blocks: every result alike, the code
   positions in the same order, the same tables, and the same lines
   named at the same points.  (A model that did blocks late, in a batch,
   without doing it first at another thread's block, a segment's end, a
   cut, a thread event or an access handed over alone, fails it: session
   26's experiment, perf/RESULTS-sharing.md.) */
#define BL 48           /* lines */
#define BSEG 5
#define BMAX 600        /* a block's accesses, at most (the tool's: 64) */

static void test_blocks(void)
{
   sh_model *one, *blk;
   static sh_site site[BMAX + 2];
   static uint64_t addr[BMAX + 2];
   uint32_t n = 0, j, bad = 0, late = 0, pos_id[8], bt = 1, longest = 60;
   int round, s, k, i, t, r, alone;

   begin();
   rng = 4242;
   for (round = 0; round < 40; round++) {
      one = sh_new(LINE);
      blk = sh_new(LINE);
      sh_set_namer(one, name_one, 0);
      sh_set_namer(blk, name_blk, 0);
      named_one = named_blk = 0;
      for (i = 0; i < 8; i++) {
         sh_position(one, 0x2000 + i);       /* numbered alike: unneeded, harmless */
         pos_id[i] = sh_position(blk, 0x2000 + i);
      }
      for (s = 0; s < BSEG; s++) {
         for (t = 1; t <= 2; t++) {
            for (k = 0; k < BL; k++) {
               /* one thread sweeps lines 0..BL-1, the other from BL/2
                  on (half of them shared), both the same loop body; they
                  swap in every other segment (lines one thread alone
                  touched pass to the other across a barrier) */
               uint64_t line = (uint64_t)((t == 1) ^ (s & 1) ? k : k + BL / 2);
               for (i = 0; i < 8; i++) {
                  /* (every third segment loads only: the transfer of
                     equations (4) and (5) into it needs the store flag
                     of the segment before, which the short path sets) */
                  uint32_t size = 8, kinds = i % 4 == 3 && s % 3 != 2 ? 2 : 1,
                           p = (uint32_t)i % 4;
                  uint64_t a = BASE + line * LINE + (uint64_t)i * 8;
                  uint32_t who = (uint32_t)t;
                  r = (int)rnd(40);
                  if (r == 0) kinds = 3;
                  if (r == 1) { a += 4; }                  /* the last one crosses */
                  if (r == 2) size = 2;
                  if (r == 3) p = 4 + (uint32_t)rnd(4);
                  if (r == 4) who = 3 - who;               /* the other thread, once */
                  alone = r == 5 && rnd(4) == 0;
                  if (alone && rnd(2) == 0) kinds = 3;
                  if (alone) {                             /* one handed over alone */
                     sh_access_block(blk, bt, site, addr, n);
                     n = 0;
                     if (kinds == 3)
                        sh_modify(blk, who, a, size, 0x2000 + p);
                     else
                        sh_access(blk, who, a, size, kinds == 2, 0x2000 + p);
                  }
                  if (kinds == 3)
                     sh_modify(one, who, a, size, 0x2000 + p);
                  else
                     sh_access(one, who, a, size, kinds == 2, 0x2000 + p);
                  if (n && (bt != who || n >= longest)) { /* a block is one thread's */
                     sh_access_block(blk, bt, site, addr, n);
                     n = 0;
                     longest = rnd(6) == 0 ? BMAX : 60;
                  }
                  bt = who;
                  if (!alone) {
                     site[n] = (sh_site){ pos_id[p], (uint16_t)size, (uint16_t)kinds };
                     addr[n++] = a;
                  }
                  if (rnd(7) == 0) {                       /* a guard that was false */
                     site[n] = (sh_site){ pos_id[0], 8, 1 };
                     addr[n++] = SH_SKIPPED;
                  }
                  if (rnd(10) == 0) {
                     sh_access_block(blk, bt, site, addr, n);
                     n = 0;
                  }
                  if (rnd(50) == 0) {                      /* named alike by now */
                     sh_access_block(blk, bt, site, addr, n);
                     n = 0;
                     late += named_one != named_blk;
                  }
               }
            }
            if (rnd(4) == 0) {                             /* a cut, mid-segment */
               sh_access_block(blk, bt, site, addr, n);
               n = 0;
               sh_end_fork_join(one);
               sh_end_fork_join(blk);
            } else if (rnd(3) == 0) {
               /* the other thread starts one and joins it: a cut only
                  if the block's thread has not accessed in the segment */
               sh_model *both[2] = { one, blk };
               sh_access_block(blk, bt, site, addr, n);
               n = 0;
               for (j = 0; j < 2; j++) {
                  sh_thread_created(both[j], 3 - bt, 5);
                  sh_thread_exited(both[j], 5);
                  sh_thread_joined(both[j], 3 - bt, 5);
                  sh_thread_exited(both[j], 3 - bt);
               }
            }
         }
         sh_access_block(blk, bt, site, addr, n);
         n = 0;
         sh_end_segment(one);
         sh_end_segment(blk);
      }
      if (sh_nlines(one) != sh_nlines(blk) || sh_memory(one) != sh_memory(blk)
          || sh_get_stats(one).replays != sh_get_stats(blk).replays
          || sh_get_stats(one).peak_nodes != sh_get_stats(blk).peak_nodes
          || named_one != named_blk)
         bad++;
      for (j = 0; j < sh_nlines(one) && j < sh_nlines(blk); j++)
         if (!same_line(sh_line_at(one, j), sh_line_at(blk, j)))
            bad++;
      if (round == 0)
         CHECK("lines shared in the first round", sh_nlines(one) >= BL / 2, 1);
      sh_delete(one);
      sh_delete(blk);
   }
   CHECK("results alike access by access and in blocks", bad, 0);
   CHECK("the same lines named at the same points", late, 0);

   /* the cuts of thread creation and join see the block before them:
      thread 1 accessed, and thread 2 did not join it */
   site[0] = (sh_site){ 0, 8, 1 };
   addr[0] = BASE;
   blk = sh_new(LINE);
   sh_access_block(blk, 1, site, addr, 1);
   CHECK("no cut at a creation after a block",
         sh_thread_created(blk, 2, 5), 0);
   sh_delete(blk);
   blk = sh_new(LINE);
   sh_thread_created(blk, 2, 5);
   sh_thread_exited(blk, 5);
   sh_access_block(blk, 1, site, addr, 1);
   CHECK("no cut at a join after a block",
         sh_thread_joined(blk, 2, 5), 0);
   sh_delete(blk);
   end("blocks: sh_access_block as sh_access and sh_modify on each");
}

/* One line that two threads reach from 150 code positions at all 8
   offsets (a hash table's line: more counters than a short search
   handles, so they are found through an index that grows, is emptied at
   every segment and rebuilt): loads, stores, phi and theta of each
   segment from the raw counts with the thesis' formulas, and every
   access with a position (kept or "other"). */
static void test_many_counters(void)
{
   sh_model *m = sh_new(LINE);
   static uint64_t grp[8][2][2];          /* offset / 8, thread, kind */
   uint64_t ld[2], st[2], want_phi = 0, want_theta = 0, want_ld = 0, want_st = 0, kept = 0;
   int s, i, o;
   uint32_t t, j;
   const sh_line *l;

   begin();
   rng = 777;
   for (s = 0; s < 3; s++) {
      memset(grp, 0, sizeof grp);
      for (i = 0; i < 6000; i++) {
         int off = (int)rnd(8), store = (int)rnd(4) == 0;
         t = (uint32_t)rnd(2);
         sh_access(m, t + 1, BASE + (uint64_t)off * 8, 8, store, 0x4000 + rnd(150));
         grp[off][t][store]++;
      }
      sh_end_segment(m);
      for (t = 0; t < 2; t++) {
         ld[t] = st[t] = 0;
         for (o = 0; o < 8; o++) {
            ld[t] += grp[o][t][0];
            st[t] += grp[o][t][1];
         }
         want_ld += ld[t];
         want_st += st[t];
      }
      /* the thesis' (1) and (2) for two threads */
      want_phi += thesis_phi(st[0], ld[0], st[1], ld[1]);
      for (o = 0; o < 8; o++)
         want_theta += 2 * (mn(grp[o][0][1], grp[o][1][0]) + mn(grp[o][1][1], grp[o][0][0]));
      if (s > 0)
         want_phi++, want_theta++;        /* (4), (5): stored in both segments */
   }
   l = line_of(m, BASE);
   for (j = 0; j < l->npos; j++)
      kept += l->pos[j].count;
   CHECK("loads", l->loads, want_ld);
   CHECK("stores", l->stores, want_st);
   CHECK("every access has a position", kept + l->other_pos, want_ld + want_st);
   CHECK("theta", l->theta, want_theta);
   CHECK("phi", l->phi, want_phi);
   sh_delete(m);
   end("many counters on one line: the index");
}

/* ---- which bytes each thread's code touched -------------------------------- */

/* The bits of bytes [lo, hi] of a 64-byte line. */
static uint64_t bytes_of(int lo, int hi)
{
   return (hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
}

/* Thread 1 at position 0x10 stores 8 bytes at 0 and, at 0x11, loads 2 at
   20; thread 2 at 0x20 stores 4 at 8 and loads 8 at 0: one segment, the
   line shared.  Then 20 positions of thread 3 load byte 40 each: the
   first 16 records are (thread, position) pairs, the rest go to thread
   3's record of other code.  A line shared in one segment only keeps
   nothing of a segment where one thread alone touched it. */
static void test_touches(void)
{
   sh_model *m = sh_new(LINE);
   const sh_line *l;
   uint32_t k, tid, n3 = 0, other = 0, bad = 0;
   uint64_t pos;
   const uint64_t *ld, *st;
   int i;

   begin();
   sh_access(m, 5, BASE + 128, 8, 1, 0x50);         /* another line, one thread */
   sh_access(m, 1, BASE, 8, 1, 0x10);
   sh_access(m, 1, BASE + 20, 2, 0, 0x11);
   sh_access(m, 2, BASE + 8, 4, 1, 0x20);
   sh_access(m, 2, BASE, 8, 0, 0x20);
   for (i = 0; i < 20; i++)
      sh_access(m, 3, BASE + 40, 1, 0, 0x30 + i);
   sh_end_segment(m);
   l = line_of(m, BASE);
   CHECK("records: 3 of threads 1 and 2, 13 of thread 3's positions, 1 other",
         sh_touches(l), 16 + 1);
   for (k = 0; k < sh_touches(l); k++) {
      sh_touch_at(m, l, k, &pos, &tid, &ld, &st);
      if (pos == 0x10 && tid == 1)
         bad += ld[0] != 0 || st[0] != bytes_of(0, 7);
      else if (pos == 0x11 && tid == 1)
         bad += ld[0] != bytes_of(20, 21) || st[0] != 0;
      else if (pos == 0x20 && tid == 2)
         bad += ld[0] != bytes_of(0, 7) || st[0] != bytes_of(8, 11);
      else if (tid == 3 && pos == SH_OTHER_POS)
         other++, bad += ld[0] != bytes_of(40, 40) || st[0] != 0;
      else if (tid == 3 && pos >= 0x30 && pos < 0x30 + 20)
         n3++, bad += ld[0] != bytes_of(40, 40) || st[0] != 0;
      else
         bad++;
   }
   CHECK("thread 3's positions kept", n3, 13);
   CHECK("thread 3's other code", other, 1);
   CHECK("bytes of every record", bad, 0);
   CHECK("the one-thread line", sh_touches(line_of(m, BASE + 128)), 0);
   sh_delete(m);
   end("touches: the bytes of each thread and position");
}

/* 20000 lines spread over a wide range (pages of lines, rehashing): on
   each, thread 1 stores 4 bytes at offset 0 and thread 2 at offset 8:
   M = min(S=2, N/2=1, N-N_t=1) = 1, phi = 1, theta = 0; every line once. */
static void test_many_lines(void)
{
   sh_model *m = sh_new(LINE);
   uint32_t i, bad = 0, n = 20000;
   uint64_t *line = malloc(n * sizeof *line);

   begin();
   rng = 99;
   for (i = 0; i < n; i++) {
      line[i] = i * 7 + rnd(5) * 100000;       /* some pages dense, some not */
      sh_access(m, 1, line[i] * LINE, 4, 1, 0x10);
   }
   for (i = n; i-- > 0; )
      sh_access(m, 2, line[i] * LINE + 8, 4, 1, 0x20);
   sh_end_segment(m);
   for (i = 0; i < sh_nlines(m); i++) {
      const sh_line *l = sh_line_at(m, i);
      if (l->phi != 1 || l->theta != 0 || l->npos != 2)
         bad++;
   }
   CHECK("lines shared", sh_nlines(m), n);
   CHECK("lines with phi 1, theta 0, 2 positions", bad, 0);
   free(line);
   sh_delete(m);
   end("many lines: pages and rehashing");
}

/* Thread ids past 63: the line's owner once held tid & 63, so ids 2 and
   66 were one thread to it, and their false sharing was never counted.
   Each pattern is run with ids (a, b) and with (2, 3): the results must
   be the same.  Two segments: stores of a then b at disjoint offsets of
   one line (a's history, then b's); then a stores a line in a segment and
   b loads it in the next (the transfer across the barrier). */
static void high_ids_run(uint32_t a, uint32_t b, uint64_t out[6])
{
   sh_model *m = sh_new(LINE);
   const sh_line *l;
   int i;

   for (i = 0; i < 100; i++)
      sh_access(m, a, BASE + 0, 8, 1, 0x100);
   for (i = 0; i < 100; i++)
      sh_access(m, b, BASE + 8, 8, 1, 0x200);
   sh_access(m, a, BASE + LINE, 8, 1, 0x100);
   sh_end_segment(m);
   sh_access(m, b, BASE + LINE, 8, 0, 0x200);
   sh_end_segment(m);
   l = line_of(m, BASE);
   out[0] = l->phi;
   out[1] = l->theta;
   l = line_of(m, BASE + LINE);
   out[2] = l->phi;
   out[3] = l->theta;
   out[4] = sh_nthreads(m);
   out[5] = sh_nlines(m);
   sh_delete(m);
}

static void test_high_ids(void)
{
   static const uint32_t pairs[][2] = { { 2, 66 }, { 66, 2 }, { 2, 130 }, { 70, 134 },
                                        { 3, 255 } };
   uint64_t want[6], got[6];
   unsigned p, k;

   begin();
   high_ids_run(2, 3, want);
   CHECK("ids 2, 3: phi of the falsely shared line", want[0], 199);
   CHECK("ids 2, 3: the barrier's transfer", want[2], 1);
   for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
      high_ids_run(pairs[p][0], pairs[p][1], got);
      for (k = 0; k < 6; k++)
         if (got[k] != want[k] && !group_failed) {
            group_failed = 1;
            snprintf(fail_msg, sizeof fail_msg, "ids %u, %u: result %u is %llu, "
                     "with ids 2, 3 %llu", pairs[p][0], pairs[p][1], k,
                     (unsigned long long)got[k], (unsigned long long)want[k]);
         }
   }
   {
      sh_model *m = sh_new(LINE);
      uint32_t t;
      for (t = 1; t <= 300; t++)
         sh_access(m, t, BASE + (t % 8) * 8, 8, 1, 0x100);
      sh_access(m, SH_MAX_TID, BASE, 8, 1, 0x100);
      sh_end_segment(m);
      CHECK("threads counted past 63", sh_nthreads(m), 301);
      sh_delete(m);
   }
   end("thread ids past 63 are threads of their own");
}

int main(void)
{
   test_hand();
   test_high_ids();
   test_many_lines();
   test_histories();
   test_canonical_order();
   test_packed();
   test_pack_store();
   test_blocks();
   test_many_counters();
   test_touches();
   test_two_threads();
   test_brute_one_segment();
   test_brute_segments();
   test_fork_join_hand();
   test_fork_join_brute();
   return failures ? 1 : 0;
}
