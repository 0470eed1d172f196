/*
** test_bandwidth.c -- native unit test of cachesim/bandwidth.c
** (--bandwidth=yes: windows, histograms, dominance, machine file).
**
** Build and run (from the project root):
**   gcc -O2 -g -Wall -Wextra -Icachesim -Ibackdate -o test_bandwidth \
**       tests/unit/test_bandwidth.c tests/unit/port_native.c \
**       cachesim/bandwidth.c cachesim/cachesim.c cachesim/l2.c \
**       cachesim/streampf.c backdate/backdate.c && ./test_bandwidth
**
** Every check compares the model with a brute force over the whole
** trace kept in memory (the model keeps none): the window sums of every
** unit recomputed from the definition, their histogram counted in an
** array, the dominating path found by computing every slowdown factor
** in floating point; and the thesis' identities sum(n) = T + W,
** sum(s * n) = W * V.  The machine file parser gets a file written by
** hand and every kind of bad line.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bandwidth.h"

#include "check.h"

/* ---- the map -------------------------------------------------------------------- */

/* Key number i of the test: small ones (neighbours in the table) and
   large ones. */
static uint64_t map_key(uint32_t i)
{
   return i % 2 ? (uint64_t)i : (uint64_t)i << 40 | i;
}

enum { MAP_KEYS = 4096 };
/* The test's plain array: which keys are present, their values, and a
   list of the present ones (to pick one at random). */
static char map_present[MAP_KEYS];
static uint64_t map_val[MAP_KEYS];
static uint32_t map_list[MAP_KEYS], map_pos[MAP_KEYS], map_n;

static void plain_put(uint32_t k, uint64_t v)
{
   if (!map_present[k]) {
      map_present[k] = 1;
      map_pos[k] = map_n;
      map_list[map_n++] = k;
   }
   map_val[k] = v;
}

static void plain_del(uint32_t k)
{
   if (!map_present[k])
      return;
   map_present[k] = 0;
   map_list[map_pos[k]] = map_list[--map_n];
   map_pos[map_list[map_pos[k]]] = map_pos[k];
}

/* A key to work on: about `target` keys stay present. */
static uint32_t map_pick(int inserting, uint32_t target)
{
   if (map_n && (inserting ? map_n >= target : rnd(4) != 0))
      return map_list[rnd(map_n)];
   return (uint32_t)rnd(MAP_KEYS);
}

/* Whether m holds exactly the plain array's keys, with their values. */
static int map_matches(const bw_map *m)
{
   uint32_t i, n = 0;

   for (i = 0; i < MAP_KEYS; i++) {
      const uint64_t *v = bw_map_find(m, map_key(i));
      if (!v != !map_present[i] || (v && *v != map_val[i]))
         return 0;
   }
   for (i = 0; i < m->cap; i++)
      n += m->keys[i] != BW_MAP_NONE;
   return n == m->used && n == map_n;
}

/* Random adds, sets, deletes and finds against a plain array, with about
   7, then 60, then 300 keys present (small tables first: probe chains
   that wrap around the end; deletions inside chains; growth). */
static void test_map(void)
{
   bw_map m;
   int i;

   begin();
   memset(&m, 0, sizeof m);
   CHECK("empty: not found", bw_map_find(&m, 5) == NULL, 1);
   CHECK("empty: nothing to delete", bw_map_del(&m, 5), 0);
   for (i = 0; i < 300000; i++) {
      uint32_t target = i < 100000 ? 7 : i < 200000 ? 60 : 300;
      uint32_t op = (uint32_t)rnd(4), k = map_pick(op < 2, target);
      uint64_t x = rnd(1000);
      if (op == 0) {
         bw_map_add(&m, map_key(k), x);
         plain_put(k, map_present[k] ? map_val[k] + x : x);
      } else if (op == 1) {
         bw_map_set(&m, map_key(k), x);
         plain_put(k, x);
      } else if (op == 2) {
         CHECK("delete = present", bw_map_del(&m, map_key(k)), map_present[k]);
         plain_del(k);
      } else {
         const uint64_t *v = bw_map_find(&m, map_key(k));
         CHECK("find = present", v != NULL, map_present[k]);
         CHECK("find: the value", v ? *v : 0, map_present[k] ? map_val[k] : 0);
      }
      CHECK("used", m.used, map_n);
      CHECK("at most half full", 2 * m.used <= m.cap, 1);
      if (i % 10000 == 0)
         CHECK("contents", map_matches(&m), 1);
      if (i == 250000) {
         bw_map_clear(&m);
         while (map_n)
            plain_del(map_list[0]);
         CHECK("cleared", map_matches(&m), 1);
      }
   }
   CHECK("final contents", map_matches(&m), 1);
   bw_map_free(&m);
   CHECK("freed", m.cap + m.used + (m.keys != NULL), 0);
   end("map: adds, sets, deletes, finds = a plain array");
}

/* ---- histograms ------------------------------------------------------------ */

#define MAXV 200000
static uint64_t want_count[MAXV];
static uint64_t seen_last, seen_sum, seen_n;
static int seen_sorted, seen_match;

static void collect(void *ctx, uint64_t v, uint64_t n)
{
   uint32_t shift = ctx ? *(const uint32_t *)ctx : 0;  /* (values v << shift) */

   if (v & ((1ull << shift) - 1))
      seen_match = 0;
   v >>= shift;
   if (seen_n && v <= seen_last)
      seen_sorted = 0;
   if (v >= MAXV || want_count[v] != n)
      seen_match = 0;
   seen_last = v;
   seen_n++;
   seen_sum += n;
}

/* (want_count[v] for value v << shift) */
static void each_check_shifted(bw_hist *h, uint32_t shift)
{
   seen_last = seen_sum = seen_n = 0;
   seen_sorted = seen_match = 1;
   bw_hist_each(h, collect, &shift);
}

static void each_check(bw_hist *h)
{
   each_check_shifted(h, 0);
}

static void test_hist(void)
{
   bw_hist h;
   uint64_t total = 0, distinct = 0;
   int i;

   begin();
   memset(&h, 0, sizeof h);
   memset(want_count, 0, sizeof want_count);
   for (i = 0; i < 300000; i++) {
      /* runs of equal values, small values and values above BW_DENSE */
      uint64_t v = rnd(4) == 0 ? BW_DENSE + rnd(100000) : rnd(3000);
      uint64_t n = 1 + rnd(3);
      if (!want_count[v])
         distinct++;
      want_count[v] += n;
      total += n;
      bw_hist_add(&h, v, n);
   }
   each_check(&h);
   CHECK("sorted ascending", seen_sorted, 1);
   CHECK("counts equal brute force", seen_match, 1);
   CHECK("distinct values", (long)seen_n, (long)distinct);
   CHECK("total count", (long)seen_sum, (long)total);
   /* adding after writing keeps counting */
   bw_hist_add(&h, 7, 5);
   want_count[7] += 5;
   each_check(&h);
   CHECK("counts after more adds", seen_match, 1);
   bw_hist_free(&h);
   /* counted in lines (shift): the values of want_count times 64 */
   memset(&h, 0, sizeof h);
   h.shift = 6;
   for (i = 0; i < MAXV; i++)
      if (want_count[i])
         bw_hist_add(&h, (uint64_t)i << 6, want_count[i]);
   each_check_shifted(&h, 6);
   CHECK("counted in lines: sorted", seen_sorted, 1);
   CHECK("counted in lines: the same counts", seen_match, 1);
   CHECK("counted in lines: distinct values", (long)seen_n, (long)distinct);
   bw_hist_free(&h);
   end("histogram: exact counts, ascending, dense and hashed values");
}

/* ---- one core: windows and identities --------------------------------------- */

#define MAXT 5000
static uint32_t trace[MAXT][BW_PATHS];

/* The window sum of path p at unit t (1-based; units past T are empty). */
static uint64_t window_at(int p, long t, long T, uint32_t w)
{
   uint64_t s = 0;
   long x;

   for (x = t - (long)w + 1; x <= t; x++)
      if (x >= 1 && x <= T)
         s += trace[x - 1][p];
   return s;
}

static uint64_t hsum_n, hsum_sn;
static void sums(void *ctx, uint64_t v, uint64_t n)
{
   (void)ctx;
   hsum_n += n;
   hsum_sn += v * n;
}

/* sparse: 1 most units empty, 2 also path p empty before unit 50p + 10 */
static void run_core(long T, uint32_t w, int sparse)
{
   bw_core c;
   long t;
   int p;
   uint64_t V[BW_PATHS] = { 0 };

   bw_core_init(&c, w);
   for (t = 0; t < T; t++) {
      for (p = 0; p < BW_PATHS; p++) {
         trace[t][p] = sparse && rnd(5) ? 0 : rnd(p == BW_FLOP ? 9 : 200);
         if (sparse == 2 && t < 50 * p + 10)
            trace[t][p] = 0;     /* path p starts late, after a quiet stretch */
         V[p] += trace[t][p];
         if (trace[t][p])
            bw_add(&c, p, trace[t][p]);
      }
      if (!bw_close_quiet(&c, 0, 0, 0))
         bw_close(&c, NULL, 0, 0);
   }
   bw_finish(&c);
   CHECK("units", (long)c.units, T);
   for (p = 0; p < BW_PATHS; p++) {
      memset(want_count, 0, sizeof want_count);
      for (t = 1; t <= T + (long)w; t++)
         want_count[window_at(p, t, T, w)]++;
      each_check(&c.hist[p]);
      CHECK("histogram = brute force window sums", seen_match, 1);
      CHECK("total", (long)c.total[p], (long)V[p]);
      hsum_n = hsum_sn = 0;
      bw_hist_each(&c.hist[p], sums, NULL);
      CHECK("sum(n) = T + W", (long)hsum_n, T + (long)w);
      CHECK("sum(s*n) = W * V", (long)hsum_sn, (long)(w * V[p]));
   }
   bw_core_free(&c);
}

static void test_core(void)
{
   begin();
   run_core(1, 1, 0);
   run_core(3, 10, 0);          /* T < W */
   run_core(10, 10, 1);         /* T = W */
   run_core(4000, 200, 0);
   run_core(4000, 37, 1);
   run_core(100, 1, 1);
   run_core(2000, 30, 2);       /* paths silent at first */
   end("core: window sums and histograms = brute force; sum(n) = T+W, sum(s*n) = W*V");
}

/* ---- one core, batched ---------------------------------------------------------- */

#define MAXB 120000
static uint32_t btrace[MAXB][BW_PATHS];
/* the part of a unit's core<-L1 bytes a block run adds after writing its
   static bytes (a guarded access; with the run log) */
static uint32_t bextra[MAXB];
#define MAXPAIRS 40000
static uint64_t pairs[2][MAXPAIRS][2];
static long npairs[2];
static int pair_side;

static void keep_pair(void *ctx, uint64_t v, uint64_t n)
{
   (void)ctx;
   if (npairs[pair_side] < MAXPAIRS) {
      pairs[pair_side][npairs[pair_side]][0] = v;
      pairs[pair_side][npairs[pair_side]][1] = n;
   }
   npairs[pair_side]++;
}

static int same_hist(bw_hist *a, bw_hist *b)
{
   long i;

   npairs[0] = npairs[1] = 0;
   pair_side = 0;
   bw_hist_each(a, keep_pair, NULL);
   pair_side = 1;
   bw_hist_each(b, keep_pair, NULL);
   if (npairs[0] != npairs[1] || npairs[0] > MAXPAIRS)
      return 0;
   for (i = 0; i < npairs[0]; i++)
      if (pairs[0][i][0] != pairs[1][i][0] || pairs[0][i][1] != pairs[1][i][1])
         return 0;
   return 1;
}

/* kind 0: random bytes in every unit; 1: sparse (a unit in 50, bursts);
   2: periodic (a loop body of 7 units, as a streaming loop's loads,
   stores and flops), with a break now and then; 3: path p silent for
   long stretches (whole rings); 4: a loop body of 8 units, so with W a
   multiple of 8 the sums change only in few units (words counted in runs
   between the changes, then repeated). */
static uint32_t batch_value(int kind, int p, long t)
{
   static const uint8_t body[7][3] = { { 8, 0, 0 }, { 8, 0, 1 }, { 0, 0, 2 },
                                       { 16, 8, 0 }, { 0, 0, 0 }, { 8, 0, 1 }, { 0, 8, 0 } };
   switch (kind) {
   case 0: return rnd(3) ? rnd(p == BW_FLOP ? 9 : 300) : 0;
   case 1: return rnd(50) == 0 || (t % 5000 < 30 && rnd(2)) ? 1 + rnd(64) : 0;
   case 2:
      if (t % 9000 > 8900)
         return rnd(2) ? 64 : 0;
      if (p == BW_CORE_RD || p == BW_CORE_WR || p == BW_FLOP)
         return body[t % 7][p == BW_CORE_RD ? 0 : p == BW_CORE_WR ? 1 : 2];
      return t % 56 == 3 * p ? 64 : 0;
   case 3: return (t / 3000) % (p + 2) == 0 && rnd(4) == 0 ? rnd(100) : 0;
   default:
      if (t % 7000 > 6950)
         return rnd(3) ? 8 : 0;
      return t % 8 == (uint32_t)p % 3 ? 8u + (uint32_t)p : 0;
   }
}

#define WRITTEN_PATHS ((1u << BW_CORE_RD) | (1u << BW_CORE_WR) | (1u << BW_FLOP))

/* The run log's keys (bw_batch_log): a block's contents (its n units'
   bytes on the three written paths) get a number, the same contents the
   same number (exact: contents compared), 0 once the table is full. */
#define KEYS 4096
static uint32_t key_n[KEYS], key_v[KEYS][3][64];
static uint32_t n_keys;

static uint64_t key_of(uint32_t v3[3][64], uint32_t n)
{
   uint32_t h = n * 2654435761u, k, i;

   for (k = 0; k < n; k++)
      h = (h ^ v3[0][k] ^ v3[1][k] << 10 ^ v3[2][k] << 20) * 16777619u;
   for (i = h % KEYS; key_n[i]; i = (i + 1) % KEYS) {
      int same = key_n[i] == n;
      for (k = 0; k < n && same; k++)
         same = key_v[i][0][k] == v3[0][k] && key_v[i][1][k] == v3[1][k]
                && key_v[i][2][k] == v3[2][k];
      if (same)
         return (uint64_t)(i + 1) << 32 | n;
   }
   if (n_keys + 1 >= KEYS)
      return 0;
   n_keys++;
   key_n[i] = n;
   for (k = 0; k < n; k++) {
      key_v[i][0][k] = v3[0][k];
      key_v[i][1][k] = v3[1][k];
      key_v[i][2][k] = v3[2][k];
   }
   return (uint64_t)(i + 1) << 32 | n;
}

/* Written paths (bw_core.written): units u .. nxt-1 in blocks of random
   length, each written whole (bw_batch_put or bw_batch_put3,
   bw_batch_mark: the tool's block runs) or zeroed and added to
   (bw_batch_zero: its other groups). With log, a bw_batch_put3 block is
   logged with the key of its contents (the others as not known); now
   and then a unit's bytes are put in part and the rest added after (a
   guarded access: bw_batch_log_unknown, bextra); the periodic kind 2 gets
   blocks of whole periods at the period's phase too. */
static long log_repeats;           /* runs bw_batch_log_repeat took */

static void write_units(bw_core *b, long u, long nxt, int kind, int log)
{
   long g;
   int p;

   for (g = u; g < nxt;) {
      uint32_t n = 1 + rnd(40), k, vals[64], how = rnd(3);
      uint64_t bits, key;
      if (log && kind == 2 && rnd(16))
         n = 7 - (uint32_t)(g % 7), how = 2;
      if (g + (long)n > nxt)
         n = (uint32_t)(nxt - g);
      if (how == 2) {                    /* the three at once (bw_batch_put3) */
         static const int paths[3] = { BW_CORE_RD, BW_CORE_WR, BW_FLOP };
         uint32_t v3[3][64];
         const uint32_t *const src[3] = { v3[0], v3[1], v3[2] };
         for (k = 0, bits = 0; k < n; k++) {
            v3[0][k] = btrace[g + k][BW_CORE_RD];
            v3[1][k] = btrace[g + k][BW_CORE_WR];
            v3[2][k] = btrace[g + k][BW_FLOP];
            bits |= (uint64_t)(v3[2][k] != 0) << k;
         }
         for (k = 0; k < n && log; k++)
            v3[0][k] -= bextra[g + k];
         key = log ? key_of(v3, n) : 0;
         if (key && bw_batch_log_repeat(b, (uint64_t)g, n, key))
            log_repeats++;             /* (not written: the log copies it) */
         else {
            bw_batch_put3(b, paths, (uint64_t)g, src, n);
            bw_batch_mark(b, BW_FLOP, (uint64_t)g, &bits, n);
            if (log)
               bw_batch_log(b, (uint64_t)g, n, key);
         }
         for (k = 0; k < n && log; k++)
            if (bextra[g + k]) {
               bw_batch_log_unknown(b);
               bw_batch_add(b, BW_CORE_RD, (uint64_t)(g + k), bextra[g + k]);
            }
         g += n;
         continue;
      }
      if (log)
         bw_batch_log(b, (uint64_t)g, n, 0);
      for (p = 0; p < BW_PATHS; p++) {
         if (!((WRITTEN_PATHS >> p) & 1))
            continue;
         if (!how) {
            bw_batch_zero(b, p, (uint64_t)g, n);
            for (k = 0; k < n; k++)
               if (btrace[g + k][p])
                  bw_batch_add(b, p, (uint64_t)(g + k), btrace[g + k][p]);
            continue;
         }
         for (k = 0, bits = 0; k < n; k++) {
            vals[k] = btrace[g + k][p];
            bits |= (uint64_t)(vals[k] != 0) << k;
         }
         bw_batch_put(b, p, (uint64_t)g, vals, n);
         if (!BW_BATCH_DENSE(p))
            bw_batch_mark(b, p, (uint64_t)g, &bits, n);
      }
      g += n;
   }
}

/* The batched core against bw_close once per unit: adds in stretches of
   random length (path by path, last unit first; with written, the
   written paths' units by write_units), flushed at random units (not
   always where the adds end), T units many times the ring. */
#define ORDERED_PATHS ((1u << BW_L1_RD) | (1u << BW_L1_WR) | (1u << BW_L1_L1) \
                       | (1u << BW_MEM_RD) | (1u << BW_MEM_WR))

/* Ordered paths: units u .. nxt-1 appended in unit order, their entries
   then found again (bw_batch_entry: from a random unit on). */
static int append_units(bw_core *b, long u, long nxt)
{
   long t, x;
   int p, ok = 1;

   for (t = u; t < nxt; t++)
      for (p = 0; p < BW_PATHS; p++)
         if (((ORDERED_PATHS >> p) & 1) && btrace[t][p]) {
            /* (two appends to one unit: one entry) */
            uint32_t half = btrace[t][p] / 2;
            if (half)
               bw_batch_append(b, p, (uint64_t)t, half);
            bw_batch_append(b, p, (uint64_t)t, btrace[t][p] - half);
         }
   x = (long)b->units + (long)rnd((uint32_t)(nxt - (long)b->units + 1));
   for (p = 0; p < BW_PATHS; p++) {
      uint64_t e;
      if (!((ORDERED_PATHS >> p) & 1))
         continue;
      e = bw_batch_entry(b, p, (uint64_t)x);
      for (t = x; t < nxt; t++)
         if (btrace[t][p]) {
            ok &= bw_batch_entry_unit(b, p, e) == (uint64_t)t
                  && bw_batch_entry_bytes(b, p, e) == btrace[t][p];
            e++;
         }
      ok &= bw_batch_entry_unit(b, p, e) == ~(uint64_t)0;
   }
   return ok;
}

/* mode 0: bw_batch_add only; 1: written paths (write_units); 2: written
   and ordered paths (append_units); 3: and the run log, as the tool uses
   them. */
static void run_batch(long T, uint32_t w, uint32_t stretch, int kind, int mode)
{
   bw_core ref, b;
   long t, u = 0;
   int p, ok = 1, next_ok = 1, written = mode >= 1, ordered = mode >= 2, log = mode == 3;
   /* (mode 2: the ordered paths' bytes in lines of 64, their histograms
      counted in lines: bw_batch_ordered_shift) */
   int lines = mode == 2;
   uint32_t own = (written ? WRITTEN_PATHS : 0) | (ordered ? ORDERED_PATHS : 0);

   bw_core_init(&ref, w);
   bw_batch_init(&b, w, stretch);
   if (written)
      b.written = WRITTEN_PATHS;
   if (ordered)
      bw_batch_ordered(&b, ORDERED_PATHS);
   if (lines)
      bw_batch_ordered_shift(&b, 6);
   if (log)
      bw_batch_log_init(&b);
   n_keys = 0;
   log_repeats = 0;
   memset(key_n, 0, sizeof key_n);
   for (t = 0; t < T; t++) {
      bextra[t] = log && rnd(100) == 0 ? 1 + rnd(8) : 0;
      for (p = 0; p < BW_PATHS; p++) {
         btrace[t][p] = batch_value(kind, p, t) + (p == BW_CORE_RD ? bextra[t] : 0);
         if (lines && ((ORDERED_PATHS >> p) & 1))
            btrace[t][p] *= 64;
         if (btrace[t][p])
            bw_add(&ref, p, btrace[t][p]);
      }
      if (!bw_close_quiet(&ref, 0, 0, 0))
         bw_close(&ref, NULL, 0, 0);
   }
   bw_finish(&ref);
   while (u < T) {
      long limit = (long)bw_batch_limit(&b), nxt, f;
      if (u == limit) {                  /* the ring is full */
         bw_batch_flush(&b, (uint64_t)u);
         limit = (long)bw_batch_limit(&b);
      }
      nxt = u + 1 + (long)rnd(limit - u);
      if (nxt > T)
         nxt = T;
      if (written)
         write_units(&b, u, nxt, kind, log);
      if (ordered)
         next_ok &= append_units(&b, u, nxt);
      for (p = 0; p < BW_PATHS; p++)
         for (t = nxt - 1; t >= u && !((own >> p) & 1); t--)
            if (btrace[t][p])
               bw_batch_add(&b, p, t, btrace[t][p]);
      /* bw_batch_next finds exactly the units with bytes (with the log,
         once the runs it took are copied: not always, so that the walk
         copies them too) */
      if (log && rnd(2))
         bw_batch_log_settle(&b);
      for (p = 0; p < BW_PATHS; p++) {
         long x = (long)b.units;
         if (BW_BATCH_DENSE(p) || ((b.ordered >> p) & 1) || b.log_owed)
            continue;
         for (t = (long)b.units; t < nxt; t++)
            if (btrace[t][p]) {
               x = (long)bw_batch_next(&b, p, (uint64_t)x, (uint64_t)nxt);
               next_ok &= x == t && bw_batch_at(&b, p, (uint64_t)t) == btrace[t][p];
               x = t + 1;
            }
         next_ok &= bw_batch_next(&b, p, (uint64_t)x, (uint64_t)nxt) == (uint64_t)nxt;
      }
      f = nxt == limit || nxt == T || rnd(2) ? nxt : (long)b.units + (long)rnd(nxt - (long)b.units + 1);
      bw_batch_flush(&b, (uint64_t)f);
      u = nxt;
   }
   bw_batch_finish(&b, (uint64_t)T);
   CHECK("batched: units", (long)b.units, (long)ref.units);
   CHECK("batched: bw_batch_next", next_ok, 1);
   for (p = 0; p < BW_PATHS; p++) {
      ok &= b.total[p] == ref.total[p];
      ok &= same_hist(&b.hist[p], &ref.hist[p]);
   }
   CHECK("batched histograms and totals = unit by unit", ok, 1);
   if (log && kind == 2 && T == MAXB) {
      CHECK("batched: the run log spares compares", b.log_taken > 100, 1);
      CHECK("batched: the run log copies repeated runs", log_repeats > 1000, 1);
   }
   bw_core_free(&ref);
   bw_core_free(&b);
}

static void test_batch(void)
{
   int kind;

   begin();
   for (kind = 0; kind < 20; kind++) {
      int mode = kind / 5;                 /* written, ordered paths, log (run_batch) */
      run_batch(MAXB, 1, 100, kind % 5, mode);       /* W = 1 */
      run_batch(MAXB, 64, 1000, kind % 5, mode);     /* W = 64: ring 2048, wraps ~60 times */
      run_batch(MAXB, 200, 4000, kind % 5, mode);    /* the default window */
      run_batch(50, 37, 10, kind % 5, mode);         /* T < the ring */
   }
   for (kind = 0; kind < 4; kind++)
      run_batch(MAXB, 1000, 100, 2, kind);           /* W > the stretch */
   end("batched core = unit by unit: random, sparse, periodic, silent, few changes; W 1, 64, 200, 1000; "
       "with written paths (put, zero, mark), ordered paths (append, entries) and the run log");
}

/* ---- dominance ----------------------------------------------------------------- */

static void test_dominance(void)
{
   bw_core c;
   bw_limits lim;
   uint32_t w = 16;
   long T = 3000, t, peak = 0;
   int p, i;
   static uint64_t dom_count[BW_DOM_PATHS][MAXV / 16];
   uint64_t all_rd[MAXT], all_wr[MAXT];

   begin();
   memset(&lim, 0, sizeof lim);
   memset(dom_count, 0, sizeof dom_count);
   /* a limit on every path but core->L1; two paths equal limits (ties) */
   for (p = 0; p < BW_DOM_PATHS; p++) {
      lim.has[p] = p != BW_CORE_WR;
      lim.per_unit[p] = 20 + 7.5 * p;
   }
   lim.per_unit[BW_MEM_WR] = lim.per_unit[BW_MEM_RD];
   bw_limits_prepare(&lim, w);
   bw_core_init(&c, w);
   for (t = 0; t < T; t++) {
      int got, want = -1;
      double best = 1.0;
      /* phases: busy, sparse, idle (quiet units), all-cores sums
         changing every unit or now and then */
      int phase = (t / 300) % 3;
      for (p = 0; p < BW_PATHS; p++) {
         trace[t][p] = phase == 2 || (phase == 1 && rnd(8)) ? 0
                     : rnd(3) ? rnd(60) : rnd(200);
         if (p == BW_MEM_WR && rnd(4) == 0)
            trace[t][p] = trace[t][BW_MEM_RD];
         if (trace[t][p])
            bw_add(&c, p, trace[t][p]);
      }
      all_rd[t] = t && rnd(phase + 1) ? all_rd[t - 1] : rnd(4000);
      all_wr[t] = t && rnd(phase + 1) ? all_wr[t - 1] : rnd(4000);
      got = bw_close_quiet(&c, 1, all_rd[t], all_wr[t]) ? c.dom
            : bw_close(&c, &lim, all_rd[t], all_wr[t]);
      /* brute force: every factor, in tie order, the first largest > 1 */
      for (i = 0; i < BW_DOM_PATHS; i++) {
         int q = bw_dom_order[i];
         uint64_t s = q < BW_PATHS ? window_at(q, t + 1, T, w)
                    : q == BW_ALL_RD ? all_rd[t] : all_wr[t];
         double f = ((double)s / w) / lim.per_unit[q];
         if (lim.has[q] && f > best && (double)s > w * lim.per_unit[q]) {
            best = f;
            want = q;
         }
      }
      CHECK("dominating path", got, want);
      if (want < 0)
         peak++;
      else
         dom_count[want][want < BW_PATHS ? window_at(want, t + 1, T, w)
                         : want == BW_ALL_RD ? all_rd[t] : all_wr[t]]++;
   }
   bw_finish(&c);
   CHECK("peak units", (long)c.peak_units, peak);
   for (p = 0; p < BW_DOM_PATHS; p++) {
      memset(want_count, 0, sizeof want_count);
      memcpy(want_count, dom_count[p], sizeof dom_count[p]);
      each_check(&c.dom_hist[p]);
      CHECK("dominance histogram", seen_match, 1);
   }
   bw_core_free(&c);
   end("dominance: largest factor > 1, ties in path order, all paths, peak units");
}

/* A constant requirement r per unit and a limit r/2: after the first W-1
   units (window filling, s = r*t < r*W/2 for t < W/2) every unit is
   dominated; the added time of a dominated unit is f - 1 = 1. */
static void test_constant(void)
{
   bw_core c;
   bw_limits lim;
   uint32_t w = 200, r = 64;
   long T = 1000, t, dominated = 0;

   begin();
   memset(&lim, 0, sizeof lim);
   lim.has[BW_CORE_RD] = 1;
   lim.per_unit[BW_CORE_RD] = r / 2.0;
   bw_limits_prepare(&lim, w);
   bw_core_init(&c, w);
   for (t = 1; t <= T; t++) {
      bw_add(&c, BW_CORE_RD, r);
      dominated += bw_close(&c, &lim, 0, 0) == BW_CORE_RD;
   }
   /* s_t = r * min(t, W) > W * r / 2  <=>  t > W / 2 */
   bw_finish(&c);
   CHECK("dominated units", dominated, T - w / 2);
   CHECK("peak units", (long)c.peak_units, w / 2);
   bw_core_free(&c);
   end("constant requirement, limit half of it: units t > W/2 dominated");
}

/* ---- all cores ----------------------------------------------------------------- */

/* adds: values added per round, spread: how far ahead of `final`,
   step: how far a round finalizes at most (sparse adds leave long quiet
   stretches, which finalization counts 64 or fewer units at once). */
static void run_series(uint32_t w, uint32_t max_ahead, long adds, long spread, long step,
                       uint32_t granule)
{
   bw_series s;
   static uint64_t per_unit[60000];
   long units = 0, u, i;
   uint64_t V = 0;

   memset(per_unit, 0, sizeof per_unit);
   bw_series_init(&s, w, max_ahead, granule);
   while (units < 50000) {
      /* some cores add ahead of `final`, then some units become final */
      for (i = 0; i < adds; i++) {
         uint64_t at = s.final + rnd(spread);
         uint32_t v = rnd(100) * granule;
         bw_series_add(&s, at, v);
         per_unit[at] += v;
         V += v;
         if ((long)at + 1 > units)
            units = at + 1;
         if (i == 0)
            CHECK("window so far", (long)bw_series_window(&s, at),
                  (long)({ uint64_t x = 0; long k;
                           for (k = (long)at - (long)w + 1; k <= (long)at; k++)
                              if (k >= 0) x += per_unit[k];
                           x; }));
      }
      /* (never past the last unit added to: the file's units) */
      u = (long)s.final + rnd(step);
      bw_series_final(&s, u < units ? (uint64_t)u : (uint64_t)units);
      /* the chunks held follow what is in flight, not the whole run */
      if (s.ntab > 2 * (spread + step + w + 2 * BW_CHUNK) / BW_CHUNK + 4)
         CHECK("chunk table small", (long)s.ntab, 0);
   }
   bw_series_finish(&s, units);
   memset(want_count, 0, sizeof want_count);
   for (u = 0; u < units + (long)w; u++) {
      uint64_t x = 0;
      long k;
      for (k = u - (long)w + 1; k <= u; k++)
         if (k >= 0 && k < units)
            x += per_unit[k];
      want_count[x]++;
   }
   each_check(&s.hist);
   CHECK("all-cores histogram = brute force", seen_match, 1);
   CHECK("total", (long)s.total, (long)V);
   hsum_n = hsum_sn = 0;
   bw_hist_each(&s.hist, sums, NULL);
   CHECK("sum(n) = units + W", (long)hsum_n, units + (long)w);
   CHECK("sum(s*n) = W * V", (long)hsum_sn, (long)(w * V));
   bw_series_free(&s);
}

static void test_series(void)
{
   begin();
   run_series(50, 20000, 200, 15000, 2000, 1);   /* dense: every unit changes */
   run_series(50, 20000, 3, 15000, 2000, 1);     /* sparse: long quiet stretches */
   run_series(64, 20000, 1, 3000, 700, 64);      /* W a multiple of 64, lines */
   run_series(37, 200, 2, 150, 100, 1);          /* a small span (256) */
   run_series(1, 100, 5, 90, 130, 64);           /* W = 1 */
   /* many adds on few units: most past 254 granules (the overflow
      table: inserts, sums, deletes when the units leave) */
   run_series(37, 20000, 300, 40, 30, 1);
   run_series(300, 20000, 40, 9000, 5000, 1);    /* spans of several chunks */
   end("all cores: aligned sums, chunks, overflow, finalization, identities");
}

/* ---- dirty lines ------------------------------------------------------------------ */

/* The lines held: in the rows and in the map. */
static long dirty_count(const bw_dirty *d)
{
   uint64_t i, n = ((uint64_t)d->row_mask + 1) * d->ways;
   long c = (long)d->lines.used;

   for (i = 0; i < n; i++)
      c += d->rows[i] != BW_MAP_NONE;
   return c;
}

/* Random marks and takes over a small range of lines (many collisions,
   full rows, deletions in the middle of probe chains) against a plain
   array, for rows of several shapes (one place: nearly all in the map). */
static void run_dirty(uint32_t sets, uint32_t ways)
{
   bw_dirty d;
   static char want[4096];
   int i, n = 0;

   bw_dirty_init(&d, sets, ways);
   memset(want, 0, sizeof want);
   for (i = 0; i < 200000; i++) {
      uint64_t line = rnd(i < 100000 ? 300 : 4096);
      if (rnd(3)) {
         bw_dirty_mark(&d, line);
         n += !want[line];
         want[line] = 1;
      } else {
         CHECK("take = marked", bw_dirty_take(&d, line), want[line]);
         n -= want[line];
         want[line] = 0;
      }
      if (i % 5000 == 0)
         CHECK("count", dirty_count(&d), n);
      if (i == 150000) {
         CHECK("taken twice", bw_dirty_take(&d, line) + bw_dirty_take(&d, line) <= 1, 1);
         n -= want[line];
         want[line] = 0;
      }
      if (i == 120000) {
         bw_dirty_clear(&d);
         memset(want, 0, sizeof want);
         n = 0;
      }
   }
   for (i = 0; i < 4096; i++)
      if (want[i] != bw_dirty_take(&d, i))
         CHECK("final contents", 0, 1);
   CHECK("empty at the end", dirty_count(&d), 0);
   bw_dirty_free(&d);
}

static void test_dirty(void)
{
   begin();
   run_dirty(0, 0);
   run_dirty(4, 2);
   run_dirty(64, 8);
   run_dirty(100, 3);     /* (sets rounded up to 128) */
   run_dirty(512, 8);
   end("dirty lines: marks and takes = a plain array (rows of several shapes, full rows to the map)");
}

/* ---- machine file ---------------------------------------------------------------- */

static const char machine[] =
   "# comment\n"
   "name: Ivy Bridge quad-core 2.7 GHz (thesis Table 4.3)\n"
   "clock: 2.7e9                 # cycles per second\n"
   "instr-per-cycle: 4\n"
   "flop-per-cycle: 4\n"
   "   \n"
   "core<-L1: 86.4e9\n"
   "L1<-LL: 34.8e9\n"
   "LL<-mem all: 23.0e9\n";

static long micro(double x) { return (long)(x * 1e6 + 0.5); }

static int parse(const char *text, int flop_unit, bw_limits *l, const char **msg)
{
   memset(l, 0, sizeof *l);
   return bw_parse_machine(text, strlen(text), flop_unit, l, msg);
}

static void test_machine(void)
{
   bw_limits l;
   const char *msg = 0;

   begin();
   CHECK("parses", parse(machine, 0, &l, &msg), 0);
   /* 86.4e9 / (2.7e9 * 4) = 8 bytes per instruction */
   CHECK("core<-L1 per instr", micro(l.per_unit[BW_CORE_RD]), 8000000);
   CHECK("L1<-LL per instr", micro(l.per_unit[BW_L1_RD]), micro(34.8 / 10.8));
   CHECK("LL<-mem all", micro(l.per_unit[BW_ALL_RD]), micro(23.0 / 10.8));
   CHECK("no core->L1", l.has[BW_CORE_WR], 0);
   CHECK("flop limit = 4/4", micro(l.per_unit[BW_FLOP]), 1000000);
   CHECK("peak", (long)(l.peak / 1e6), 10800);
   CHECK("flop unit parses", parse(machine, 1, &l, &msg), 0);
   CHECK("flop unit: flop limit 1", micro(l.per_unit[BW_FLOP]), 1000000);
   CHECK("unknown key: its line", parse("clock: 1\nfoo: 2\n", 0, &l, &msg), 2);
   CHECK("no colon", parse("clock: 1\ninstr-per-cycle 2\n", 0, &l, &msg), 2);
   CHECK("bad number", parse("clock: 1\ninstr-per-cycle: 2x\n", 0, &l, &msg), 2);
   CHECK("zero", parse("clock: 0\ninstr-per-cycle: 2\n", 0, &l, &msg), 1);
   CHECK("negative", parse("clock: -1\n", 0, &l, &msg), 1);
   CHECK("twice", parse("clock: 1\nclock: 2\n", 0, &l, &msg), 2);
   CHECK("clock missing", parse("instr-per-cycle: 2\n", 0, &l, &msg), -1);
   CHECK("rate missing", parse("clock: 1\ninstr-per-cycle: 2\n", 1, &l, &msg), -1);
   CHECK("flop only as flop-per-cycle", parse("clock: 1\ninstr-per-cycle: 2\nflop: 3\n", 0, &l, &msg), 3);
   end("machine file: limits per time unit, error lines");
}

int main(void)
{
   test_map();
   test_hist();
   test_core();
   test_batch();
   test_dominance();
   test_constant();
   test_series();
   test_dirty();
   test_machine();
   return failures ? 1 : 0;
}
