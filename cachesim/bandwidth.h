/*
** bandwidth.h -- the bandwidth requirement and dominance model
** (--bandwidth=yes; thesis sections 4.3 and 4.4).  Pure C, allocation
** through cs_alloc/cs_free (cachesim.h).
**
** The model.
**  - A core (one thread) runs at a fixed peak rate; its time is counted
**    in units (one guest instruction, or one floating-point operation).
**    For every data path p the caller adds the bytes p moves in the open
**    unit (bw_add), then closes the unit (bw_close).  r_t is what path p
**    moved in unit t, and the unit's window sum is
**       s_t = r_t + r_(t-1) + ... + r_(t-W+1)      (r_t = 0 for t < 1)
**    kept exactly with a ring of the last W units per path.  The smoothed
**    requirement of unit t is s_t / W bytes per unit.
**  - Histograms (bw_hist): per path, how many units had each window sum,
**    exact (no binning), memory bounded by the number of distinct sums.
**    bw_finish adds the W units after the core's last one (the window
**    drains), so over units 1..T+W:  sum(n) = T + W  and
**    sum(s * n) = W * V, V the path's total (the thesis' identity).
**  - Dominance (thesis 4.4.1), only when limits are given: in a closed
**    unit every path p with a limit L_p has the slowdown factor
**    f_p = (s_p / W) / L_p; the path with the largest f_p > 1 dominates
**    the unit (ties: the first in bw_dom_order); a unit no path
**    dominates runs at peak.  The shared paths "LL<-mem all" and
**    "LL->mem all" take the all-cores window sum the caller passes
**    (every core gets the factor of the total: the thesis' fairness).
**    The dominating path's dominance histogram counts the unit under
**    its window sum.  Exceeding means s_p > floor(W * L_p): an integer
**    compare, exact for integer s_p.
**
** Units closed without any byte cost the same as others: the caller
** closes one unit per time unit, so the time axis is exact.  Without
** limits the caller may instead add each unit's bytes at their unit and
** count stretches of units at once (bw_batch_*, below): the same
** histograms and totals.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef BANDWIDTH_H
#define BANDWIDTH_H

#include <stdint.h>

/* The data paths of one core, in the order of the file format
   (docs/bandwidth-format.md), then the shared all-cores paths. */
enum {
   BW_CORE_RD,     /* core<-L1: bytes of loads (a modify: read and write) */
   BW_CORE_WR,     /* core->L1: bytes of stores */
   BW_L1_RD,       /* L1<-LL: I1 and D1 misses x line */
   BW_L1_WR,       /* L1->LL: dirty D1 lines written back x line */
   BW_L1_L1,       /* L1<-L1: lines from another core's D1 x line */
   BW_MEM_RD,      /* LL<-mem: LL misses x line */
   BW_MEM_WR,      /* LL->mem: dirty LL evictions x line */
   BW_FLOP,        /* flop: floating-point operations */
   BW_PATHS,       /* paths a core keeps a window of */
   BW_ALL_RD = BW_PATHS,   /* LL<-mem all */
   BW_ALL_WR,              /* LL->mem all */
   BW_DOM_PATHS
};

extern const char *const bw_path_name[BW_DOM_PATHS];
/* The tie order of dominance: the per-core byte paths, the all paths,
   flop. */
extern const int bw_dom_order[BW_DOM_PATHS];

/* ---- a map of integers ------------------------------------------------------ */

/* uint64 keys to uint64 values (the histograms' large values, the dirty
   lines, the all-cores overflow): open addressing, linear probing, at
   most half full, deletion by shifting back (no tombstones).  Key
   BW_MAP_NONE (~0) marks an empty slot and is never a key.  All zero is
   an empty map. */
#define BW_MAP_NONE (~(uint64_t)0)
typedef struct {
   uint64_t *keys, *vals;
   uint32_t  cap, used;
} bw_map;

/* The value of key, or NULL. */
uint64_t *bw_map_find(const bw_map *m, uint64_t key);
/* The value of key, made 0 if missing. */
uint64_t *bw_map_slot(bw_map *m, uint64_t key);
static inline void bw_map_add(bw_map *m, uint64_t key, uint64_t n)
{
   *bw_map_slot(m, key) += n;
}
static inline void bw_map_set(bw_map *m, uint64_t key, uint64_t n)
{
   *bw_map_slot(m, key) = n;
}
/* Removes key: whether it was there. */
int  bw_map_del(bw_map *m, uint64_t key);
/* Empty again (the memory kept). */
void bw_map_clear(bw_map *m);
void bw_map_free(bw_map *m);

/* ---- histograms ---------------------------------------------------------- */

/* An exact histogram of integer values: dense counts below BW_DENSE, a
   hash table above; consecutive equal values are counted in a run first
   (window sums change slowly).  With shift set (before the first add),
   every value is a multiple of 2^shift and is counted at v >> shift (a
   miss path's sums are multiples of the line size: their dense counts
   64 times closer, fewer host cache lines); bw_hist_each gives the
   values back. */
#define BW_DENSE (1u << 16)
typedef struct {
   uint64_t *dense;        /* dense[v >> shift] for v >> shift < dense_n */
   uint32_t  dense_n;
   uint32_t  shift;
   bw_map    big;          /* the counts of values >> shift >= BW_DENSE */
   uint64_t  run_v, run_n; /* a run of run_n values run_v, not added yet */
} bw_hist;

void bw_hist_add(bw_hist *h, uint64_t v, uint64_t n);
/* Calls f for every value with a nonzero count, ascending. */
void bw_hist_each(bw_hist *h, void (*f)(void *ctx, uint64_t v, uint64_t n),
                  void *ctx);
void bw_hist_free(bw_hist *h);
/* dst gets every count of src too. */
void bw_hist_add_hist(bw_hist *dst, bw_hist *src);

/* ---- limits ---------------------------------------------------------------- */

typedef struct {
   int      has[BW_DOM_PATHS];
   double   per_unit[BW_DOM_PATHS];   /* bytes (flop: operations) per unit */
   uint64_t above[BW_DOM_PATHS];      /* floor(W * per_unit): s > above exceeds */
   double   inv[BW_DOM_PATHS];        /* 1 / (W * per_unit) */
   double   peak;                     /* time units per second */
   int      any;
   int      order[BW_DOM_PATHS];      /* the paths with a limit, in tie order */
   int      n_order;
} bw_limits;

/* Fills above/inv for window w (after per_unit and has are set). */
void bw_limits_prepare(bw_limits *l, uint32_t w);

/* The machine file (docs/bandwidth-format.md) in text[0..len): limits for
   time unit `flop_unit` (0: instructions, 1: flops).  Returns 0, or the
   line number of the first error (with msg set to a static text; 0 lines
   when the error is about the whole file, e.g. a missing key: then -1). */
int bw_parse_machine(const char *text, unsigned long len, int flop_unit,
                     bw_limits *out, const char **msg);

/* ---- one core -------------------------------------------------------------- */

/* Units are 0-based here: unit t's window is t-W+1 .. t; bytes of unit u
   leave the window at unit u + W.  A window sum only changes when a unit
   with bytes enters or leaves, so each path keeps the units with bytes
   still inside the window (a queue of at most W) and counts the units
   between two changes at once; a unit in which nothing changes on any
   path (and, with limits, the all-cores sums are as before) costs a
   compare (bw_close_quiet). */
typedef struct {
   uint64_t *qu;                /* units with bytes in the window, oldest first */
   uint32_t *qr;                /*   and their bytes */
   uint32_t  qhead, qn;         /* ring of w entries */
   uint64_t  sum;               /* the window sum from unit `since` on */
   uint64_t  since;             /* first unit not yet counted in hist */
} bw_window;

/* An entry of an ordered path: its unit (modulo 2^32) and bytes, side
   by side (the walk reads both). */
typedef struct {
   uint32_t unit, bytes;
} bw_entry;

typedef struct {
   uint32_t  w;                 /* window */
   uint32_t  dirty;             /* paths with bytes in the open unit (bit p) */
   uint32_t  busy;              /* paths with bytes in their window */
   uint64_t  open[BW_PATHS];    /* the open unit's bytes */
   bw_window win[BW_PATHS];
   uint64_t  total[BW_PATHS];
   uint64_t  units;             /* closed units (T); the open unit's index */
   uint64_t  next_out;          /* the next unit at which bytes leave a window */
   uint64_t  out[BW_PATHS];     /* per busy path: the unit its oldest bytes leave */
   uint64_t  peak_units;        /* closed units no path dominated (after bw_finish) */
   /* dominance: the state since unit dom_since (counted at changes) */
   int       dom;               /* the dominating path, -1: peak */
   uint64_t  dom_s, dom_since;
   uint64_t  last_all[2];       /* the all-cores sums at the last change */
   int       finished;
   bw_hist   hist[BW_PATHS];
   bw_hist   dom_hist[BW_DOM_PATHS];
   /* batched (bw_batch_*; else NULL): per path, the bytes of every unit
      from units - W on, and a bit per unit saying "not zero" */
   uint32_t *ring[BW_PATHS];
   uint64_t *ring_nz[BW_PATHS];
   uint32_t  ring_mask;         /* ring size - 1 (a power of two) */
   /* the window sums of the last 64 units (by unit % 64), valid from
      unit sums_from on; a period the path's bytes repeat with, or 0 */
   uint64_t *sums[BW_PATHS];
   uint64_t  sums_from[BW_PATHS];
   uint32_t  period[BW_PATHS];
   /* words walked before the next guess of a period, and the wait after
      a failed one (doubling up to 1024: code without loops stops paying
      for guesses) */
   uint32_t  guess_in[BW_PATHS], guess_wait[BW_PATHS];
   /* units ok_from .. ok_to-1 were checked to repeat the bytes of the
      ok_p units before them (ok_p 0: none): when they leave the window
      they need no second check */
   uint64_t  ok_from[BW_PATHS], ok_to[BW_PATHS];
   uint32_t  ok_p[BW_PATHS];
   /* the paths (bit p) whose every unit's slot the caller writes whole
      before adding to it (bw_batch_put, bw_batch_zero): their slots are
      not cleared when they leave the window, only their "not zero" bits */
   uint32_t  written;
   /* the paths (bit p) the caller adds to in unit order (bw_batch_append):
      kept as a list of (unit, bytes), oldest first, instead of the ring:
      entries ev_head .. ev_in-1 entered (they leave W units after their
      unit), ev_in .. ev_tail-1 not yet (counters; entry i at i & ring_mask);
      an entry's unit modulo 2^32 (those held span less than the ring) */
   uint32_t  ordered;
   bw_entry *ev[BW_PATHS];
   uint64_t  ev_head[BW_PATHS], ev_in[BW_PATHS], ev_tail[BW_PATHS];
   /* the run log of the written paths (bw_batch_log; NULL: none):
      entries log_head .. log_tail-1 (entry i at i & log_mask), each
      units log_unit .. log_end-1, runs of one key */
   uint64_t *log_unit, *log_end, *log_key;
   uint64_t  log_head, log_tail;
   /* the runs being added (from log_cur_start, one key): here, not in
      the arrays; they go there (log_cur_put: the arrays' last entry)
      before a walk or the next key, and only when they are two runs
      or more (a lone run has no period to repeat) */
   uint64_t  log_cur_start, log_cur_key, log_cur_end;
   int       log_cur_put;
   /* the written paths' slots of the runs being added hold their bytes
      up to this unit; the later runs repeat the one before them and get
      theirs before the walk reads them (bw_batch_log_repeat: then
      log_owed is set) */
   uint64_t  log_fill;
   int       log_owed;
   uint32_t  log_mask;
   /* units log_from .. log_to-1 repeat the log_p units before them by
      the log (log_p 0: none) */
   uint64_t  log_from, log_to;
   uint32_t  log_p;
   uint64_t  log_taken;         /* words the log spared a compare (tests) */
} bw_core;

void bw_core_init(bw_core *c, uint32_t w);
void bw_core_free(bw_core *c);

static inline void bw_add(bw_core *c, int path, uint64_t bytes)
{
   c->open[path] += bytes;
   c->dirty |= 1u << path;
}

/* The window sum of path p at the last closed unit. */
static inline uint64_t bw_sum(const bw_core *c, int p)
{
   return c->win[p].sum;
}

/* Closes the open unit when nothing changes in it (no bytes, no bytes
   leaving a window, the all-cores sums as at the last change when
   all_matters): returns 1 (its dominating path is c->dom), else 0 and
   does nothing (call bw_close). */
static inline int bw_close_quiet(bw_core *c, int all_matters, uint64_t all_rd,
                                 uint64_t all_wr)
{
   if (c->dirty || c->units >= c->next_out)
      return 0;
   if (all_matters && (all_rd != c->last_all[0] || all_wr != c->last_all[1]))
      return 0;
   c->units++;
   return 1;
}

/* Closes the open unit.  lim NULL (or without any limit): no dominance;
   all_rd / all_wr are the all-cores window sums at this unit.  Returns
   the dominating path, or -1 (peak, or no limits).  Inline: see
   bandwidth_inline.h (included at the end of this file). */
static inline int bw_close(bw_core *c, const bw_limits *lim, uint64_t all_rd,
                           uint64_t all_wr);

/* The W units after the last one (the window drains); the counts of
   the last dominance state.  Once. */
void bw_finish(bw_core *c);

/* ---- one core, batched ---------------------------------------------------------

   Without limits (no dominance: each path's histogram is independent of
   the others) the caller may instead add every unit's bytes where they
   belong, bw_batch_add(c, p, u, bytes) for units u from c->units on
   (in any order), and count a stretch of units at once: bw_batch_flush
   walks each path's units whose bytes enter or leave the window (found
   64 at a time in the "not zero" bits, so a path with bytes in few units
   costs little) and counts the units between two changes at once.  A
   loop's units repeat their bytes with a period P: where the entering
   and the leaving units both repeat those P units before them and the
   window sum does too, every later sum repeats too, so such a run of
   units is checked (compares, no histogram) and counted as repetitions
   of P sums.  The histograms and totals are those of bw_close called
   once per unit.  (A leaving unit's slot is cleared BW_BATCH_LAG units
   late: the check looks P units behind the leaving one.) */
#define BW_BATCH_LAG 64u
void bw_batch_init(bw_core *c, uint32_t w, uint32_t stretch);
/* The paths with bytes in most units of most code (loads, stores) keep
   no "not zero" bits: their units are walked one by one. */
#define BW_BATCH_DENSE(p) ((p) == BW_CORE_RD || (p) == BW_CORE_WR)
static inline void bw_batch_add(bw_core *c, int p, uint64_t u, uint32_t bytes)
{
   uint32_t i = (uint32_t)u & c->ring_mask;

   c->ring[p][i] += bytes;
   if (!BW_BATCH_DENSE(p))
      c->ring_nz[p][i >> 6] |= 1ull << (i & 63);
}
/* Units u .. u+n-1 of path p get the bytes src[0..n), written whole
   (a caller that knows a run of units' bytes beforehand, e.g. a block's
   static loads and stores): their slots must not have been added to
   (units from the last one written on, before bw_batch_limit: cleared,
   so writing is adding; on a written path, bw_core.written, every unit
   is written so).  A sparse path's "not zero" bits come apart, from
   bw_batch_mark. */
typedef uint32_t bw_batch_v4 __attribute__((vector_size(16), aligned(4)));
/* n values from src to dst, 4 at a time (a block's units: tens; the
   last four written again rather than one by one) */
static inline __attribute__((always_inline))
void bw__copy(uint32_t *dst, const uint32_t *src, uint32_t n)
{
   uint32_t k;

   if (n < 4) {
      for (k = 0; k < n; k++)
         dst[k] = src[k];
      return;
   }
   for (k = 0; k + 4 < n; k += 4)
      *(bw_batch_v4 *)(dst + k) = *(const bw_batch_v4 *)(src + k);
   *(bw_batch_v4 *)(dst + n - 4) = *(const bw_batch_v4 *)(src + n - 4);
}
static inline __attribute__((always_inline))
void bw_batch_put(bw_core *c, int p, uint64_t u, const uint32_t *src, uint32_t n)
{
   uint32_t *r = c->ring[p], i = (uint32_t)u & c->ring_mask, first = n;

   if (first > c->ring_mask + 1 - i)
      first = c->ring_mask + 1 - i;
   bw__copy(r + i, src, first);
   bw__copy(r, src + first, n - first);
}
/* bw_batch_put of the same units of three paths (a block run's loads,
   stores and flops): one loop where the units do not wrap around. */
static inline __attribute__((always_inline))
void bw_batch_put3(bw_core *c, const int p[3], uint64_t u, const uint32_t *const src[3],
                   uint32_t n)
{
   uint32_t i = (uint32_t)u & c->ring_mask, k;
   uint32_t *r0 = c->ring[p[0]] + i, *r1 = c->ring[p[1]] + i, *r2 = c->ring[p[2]] + i;
   const uint32_t *s0 = src[0], *s1 = src[1], *s2 = src[2];

   if (n > c->ring_mask + 1 - i) {
      for (k = 0; k < 3; k++)
         bw_batch_put(c, p[k], u, src[k], n);
      return;
   }
   if (n < 4) {      /* (short blocks are common) */
      for (k = 0; k < n; k++) {
         r0[k] = s0[k];
         r1[k] = s1[k];
         r2[k] = s2[k];
      }
      return;
   }
   for (k = 0; k + 4 < n; k += 4) {
      *(bw_batch_v4 *)(r0 + k) = *(const bw_batch_v4 *)(s0 + k);
      *(bw_batch_v4 *)(r1 + k) = *(const bw_batch_v4 *)(s1 + k);
      *(bw_batch_v4 *)(r2 + k) = *(const bw_batch_v4 *)(s2 + k);
   }
   k = n - 4;        /* (the last four again) */
   *(bw_batch_v4 *)(r0 + k) = *(const bw_batch_v4 *)(s0 + k);
   *(bw_batch_v4 *)(r1 + k) = *(const bw_batch_v4 *)(s1 + k);
   *(bw_batch_v4 *)(r2 + k) = *(const bw_batch_v4 *)(s2 + k);
}
/* Units u .. u+n-1 of a written path p (bw_core.written) hold nothing
   yet: zero, to be added to. */
static inline void bw_batch_zero(bw_core *c, int p, uint64_t u, uint32_t n)
{
   static const uint32_t zeros[64];
   uint32_t k;

   for (k = 0; k < n; k += 64)
      bw_batch_put(c, p, u + k, zeros, n - k < 64 ? n - k : 64);
}
/* The "not zero" bits of path p's units u .. u+n-1 are set where bits
   (bit k of word k / 64: unit u + k) has them. */
/* (the bits b of 64 units from u, in the one or two words they fall in) */
static inline __attribute__((always_inline))
void bw__mark_word(uint64_t *nz, uint32_t ring_mask, uint64_t u, uint64_t b)
{
   uint32_t i = ((uint32_t)u & ring_mask) >> 6, off = (uint32_t)u & 63;

   nz[i] |= b << off;
   if (off)
      nz[(i + 1) & (ring_mask >> 6)] |= b >> (64 - off);
}
static inline __attribute__((always_inline))
void bw_batch_mark(bw_core *c, int p, uint64_t u, const uint64_t *bits, uint32_t n)
{
   uint64_t *nz = c->ring_nz[p];
   uint32_t j;

   if (n <= 64) {      /* (a block's units: one word, inline) */
      bw__mark_word(nz, c->ring_mask, u, n == 64 ? bits[0] : bits[0] & ((1ull << n) - 1));
      return;
   }
   for (j = 0; 64 * j < n; j++, u += 64)
      bw__mark_word(nz, c->ring_mask, u, n - 64 * j >= 64 ? bits[j]
                    : bits[j] & ((1ull << (n - 64 * j)) - 1));
}
/* Paths (bit p) the caller adds to in unit order only, by
   bw_batch_append (after bw_batch_init, before any add): a path with
   bytes in few units (the misses) costs the walk its units with bytes,
   entering and leaving, and no "not zero" bits or clears. */
void bw_batch_ordered(bw_core *c, uint32_t paths);
/* Every byte count the caller appends to an ordered path is a multiple
   of 2^shift (a line size all caches share): their histograms count in
   those units (bw_hist.shift).  After bw_batch_ordered, before any
   append. */
void bw_batch_ordered_shift(bw_core *c, uint32_t shift);
/* Ordered path p: bytes at unit u, u at least the unit of the last
   append (and from c->units on). */
static inline void bw_batch_append(bw_core *c, int p, uint64_t u, uint32_t bytes)
{
   uint64_t t = c->ev_tail[p];
   uint32_t last = (uint32_t)(t - 1) & c->ring_mask;

   if (t != c->ev_in[p] && c->ev[p][last].unit == (uint32_t)u) {
      c->ev[p][last].bytes += bytes;
      return;
   }
   c->ev[p][(uint32_t)t & c->ring_mask].unit = (uint32_t)u;
   c->ev[p][(uint32_t)t & c->ring_mask].bytes = bytes;
   c->ev_tail[p] = t + 1;
}
/* The unit an entry holds modulo 2^32 (`unit`), the entries held being
   from unit `low` on (units at least low, less than low + 2^32). */
static inline uint64_t bw__unit_from(uint64_t low, uint32_t unit)
{
   return low + (uint32_t)(unit - (uint32_t)low);
}
/* Entry i's unit, held from unit `low` on. */
static inline uint64_t bw__ev_unit(const bw_core *c, int p, uint64_t i, uint64_t low)
{
   return bw__unit_from(low, c->ev[p][(uint32_t)i & c->ring_mask].unit);
}
/* Ordered path p: the first entry not entered yet with its unit from x
   on (or ev_tail); its unit and bytes below. */
static inline uint64_t bw_batch_entry_unit(const bw_core *c, int p, uint64_t i)
{
   return i < c->ev_tail[p] ? bw__ev_unit(c, p, i, c->units) : ~(uint64_t)0;
}
static inline uint64_t bw_batch_entry(const bw_core *c, int p, uint64_t x)
{
   uint64_t i = c->ev_in[p];

   while (bw_batch_entry_unit(c, p, i) < x)
      i++;
   return i;
}
static inline uint32_t bw_batch_entry_bytes(const bw_core *c, int p, uint64_t i)
{
   return c->ev[p][(uint32_t)i & c->ring_mask].bytes;
}
/* The run log of the written paths (bw_core.written): a caller that
   writes runs of units whose bytes a key fixes (a block's static bytes:
   the same key, the same bytes on every written path) says so, and the
   walk takes a loop of one block (runs of one key, one after the other)
   for repeating units instead of comparing their bytes: a period the
   multiple of the run's length.  Entries in unit order, a key's runs
   one after the other joined (a lone run is no entry: no period to
   repeat): units u .. u+n-1 hold the bytes key fixes (its low 32 bits
   are n; key 0: not known). */
#define BW_LOG_N(key) ((uint32_t)(key))
void bw_batch_log_init(bw_core *c);
void bw__log_sync(bw_core *c);
void bw__log_fill(bw_core *c);
/* The slots of the runs being added are written (bw_batch_log_repeat's
   runs copied from the run before them): before anything reads them or
   adds to them. */
static inline void bw_batch_log_settle(bw_core *c)
{
   if (c->log_owed)
      bw__log_fill(c);
}
static inline __attribute__((always_inline))
void bw_batch_log(bw_core *c, uint64_t u, uint32_t n, uint64_t key)
{
   if (key == c->log_cur_key && u == c->log_cur_end) {
      c->log_cur_end = u + n;      /* (the loop goes on) */
      return;
   }
   bw_batch_log_settle(c);
   /* (code without loops: a compare, no entry) */
   if (c->log_cur_put || (c->log_cur_key && c->log_cur_end - c->log_cur_start
                          > BW_LOG_N(c->log_cur_key)))
      bw__log_sync(c);
   c->log_cur_start = u;
   c->log_cur_key = key;
   c->log_cur_end = u + n;
   c->log_cur_put = 0;
   c->log_fill = u + n;
}
/* A run of key (not 0) at units u .. u+n-1 that follows the runs being
   added, of the same key (a loop of one block goes on): its bytes on
   every written path are those of the n units before it, so the caller
   writes nothing (not its slots, not its "not zero" bits); the log
   copies them before the walk (bw_batch_log_settle).  Returns 0 when
   the run does not go on: then write it and bw_batch_log it. */
static inline __attribute__((always_inline))
int bw_batch_log_repeat(bw_core *c, uint64_t u, uint32_t n, uint64_t key)
{
   /* (a run longer than the lag: its copy source could be gone) */
   if (key != c->log_cur_key || u != c->log_cur_end || n > BW_BATCH_LAG)
      return 0;
   c->log_cur_end = u + n;
   c->log_owed = 1;
   return 1;
}
/* Bytes are to be added to the last entry's units (after its runs'
   slots are written): not known any more. */
static inline void bw_batch_log_unknown(bw_core *c)
{
   bw_batch_log_settle(c);
   c->log_cur_key = 0;
}
/* Bytes may be added at units before this one (then flush). */
static inline uint64_t bw_batch_limit(const bw_core *c)
{
   return c->units + c->ring_mask + 1 - c->w - BW_BATCH_LAG;
}
static inline uint32_t bw_batch_at(const bw_core *c, int p, uint64_t u)
{
   return c->ring[p][(uint32_t)u & c->ring_mask];
}
/* The first unit from u on, before end, with bytes on path p (else end);
   units from c->units on; not for a BW_BATCH_DENSE path. */
uint64_t bw_batch_next(const bw_core *c, int p, uint64_t u, uint64_t end);
/* Units c->units .. end-1 are closed (end < bw_batch_limit + 1). */
void bw_batch_flush(bw_core *c, uint64_t end);
/* Closes the units up to `units`, then the W after them (bw_finish). */
void bw_batch_finish(bw_core *c, uint64_t units);

/* ---- dirty D1 lines (the L1->LL write-backs) ---------------------------------- */

/* The lines a core's D1 holds modified: a store marks its lines, a line
   the D1 drops (cs_set_d1_victim_observer) is written back if marked.
   A set of line numbers, at most the lines D1 holds: a row of `ways`
   lines per D1 set (line % sets, sets rounded up to a power of two), so
   that a mark or a take scans a row where a hash map probed and shifted
   back; a line whose row is full (not with D1's own geometry: its set
   holds `ways` lines) goes to a map. */
typedef struct {
   uint64_t *rows;             /* BW_MAP_NONE: an empty place */
   uint32_t  row_mask, ways;
   bw_map    lines;            /* the lines no row had room for */
   uint64_t  last;             /* the line marked last (most stores repeat it) */
} bw_dirty;

void bw_dirty_init(bw_dirty *d, uint32_t sets, uint32_t ways);
void bw_dirty_free(bw_dirty *d);
void bw_dirty__mark(bw_dirty *d, uint64_t line);
static inline void bw_dirty_mark(bw_dirty *d, uint64_t line)
{
   if (line != d->last)
      bw_dirty__mark(d, line);
}
/* Whether line was marked; it is not any more. */
int  bw_dirty_take(bw_dirty *d, uint64_t line);
void bw_dirty_clear(bw_dirty *d);

/* ---- all cores: per-unit sums of a shared path ------------------------------ */

/* A series of per-unit values summed over cores at aligned units, and
   its window sums.  The caller adds each core's bytes at the core's
   aligned unit and finalizes units in order (bw_series_final) once no
   core can add to them any more.  It holds the W final units before
   `final` and the units from `final` on that were added to: the caller
   never adds max_ahead or more units after `final`.
   Memory follows what is in flight, not the largest span: the units are
   kept in chunks of BW_CHUNK (allocated when a value lands in one,
   reused once every unit of it is out of the window), one byte per unit
   counting the value in granules (every value added is a multiple of
   the granule: a cache line), 255 meaning "in the overflow table", and
   a bit per unit saying "not zero" (finalization skips 64 quiet units
   at once).  A thread blocked in a system call holds `final` back while
   another runs up to max_ahead units on: a byte per unit then, not
   four. */
#define BW_CHUNK 4096u
#define BW_OVERFLOW 255u
typedef struct bw_chunk {
   uint64_t nz[BW_CHUNK / 64];   /* bit u % BW_CHUNK: not zero */
   uint8_t  n[BW_CHUNK];         /* granules; BW_OVERFLOW: see the table */
   struct bw_chunk *next;        /* in the spare list */
} bw_chunk;

typedef struct {
   uint32_t  w, granule;
   uint32_t  granule_shift;      /* log2(granule) when a power of two, else 32 */
   uint64_t  max_span;           /* max_ahead + W: units held at most */
   bw_chunk **tab;               /* chunk k at tab[k & (ntab - 1)], for */
   uint32_t  ntab;               /*   k from low_k on (a power of two) */
   uint64_t  low_k;              /* the first chunk held */
   bw_chunk *spare;              /* chunks out of the window, all zero */
   bw_map    overflow;           /* unit -> granules, for BW_OVERFLOW */
   uint64_t  final;              /* units 0 .. final-1 are final */
   uint64_t  sum;                /* window sum ending at unit final-1 */
   uint64_t  total;
   bw_hist   hist;
} bw_series;

/* max_ahead: see above; granule: what every value added is a multiple of
   (values are kept as counts of it). */
void bw_series_init(bw_series *s, uint32_t w, uint32_t max_ahead, uint32_t granule);
void bw_series_free(bw_series *s);
/* v more at aligned unit u (u >= final, u < final + max_ahead; v a
   multiple of the granule). */
void bw_series_add(bw_series *s, uint64_t u, uint32_t v);
uint64_t bw_series__overflow(const bw_series *s, uint64_t u);
/* The value at unit u so far (0 outside what is held). */
static inline uint64_t bw_series_at(const bw_series *s, uint64_t u)
{
   uint64_t k = u / BW_CHUNK;
   const bw_chunk *c;
   uint32_t n;

   if (k < s->low_k || k - s->low_k >= s->ntab)
      return 0;
   c = s->tab[k & (s->ntab - 1)];
   if (!c)
      return 0;
   n = c->n[u % BW_CHUNK];
   if (n == BW_OVERFLOW)
      return bw_series__overflow(s, u) * s->granule;
   return (uint64_t)n * s->granule;
}
/* An empty series goes on from unit `final` (units before it final, with
   this window sum and total); the caller adds the values of the W units
   before it (they leave the window later). */
void bw_series_resume(bw_series *s, uint64_t final, uint64_t sum, uint64_t total);
/* Window sum ending at aligned unit u as known now (O(W)). */
uint64_t bw_series_window(const bw_series *s, uint64_t u);
/* Finalizes units final .. upto-1 (each counted in the histogram). */
void bw_series_final(bw_series *s, uint64_t upto);
/* Finalizes up to `units` and drains the window (W more units). */
void bw_series_finish(bw_series *s, uint64_t units);

#include "bandwidth_inline.h"

#endif /* BANDWIDTH_H */
