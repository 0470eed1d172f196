/*
** sharing.c -- the order-independent false sharing estimate (sharing.h
** states the model and its formulas).
**
** Data: a hash table of lines (line number -> index in a growing array
** of sh_line, kept for the whole run) and, for the current segment only,
** a hash table of counters keyed by (line, thread, offset, size, kind,
** code position).  A segment's counters of one line are chained from its
** sh_line, so ending a segment visits only the lines it touched.  The
** counter table is emptied in O(1) by bumping a generation number.
*/
#include "sharing.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */

#define NONE 0xffffffffu

/* counter key: thread << 17 | offset << 9 | (size - 1) << 1 | store */
#define KEY(tid, off, size, st) \
   (((uint64_t)(tid) << 17) | ((uint64_t)(off) << 9) | \
    ((uint64_t)((size) - 1) << 1) | (uint64_t)(st))
#define KEY_TID(k)   ((uint32_t)((k) >> 17))
#define KEY_GROUP(k) (((k) >> 1) & 0xffff)      /* offset and size */
#define KEY_STORE(k) ((uint32_t)((k) & 1))

typedef struct {
   uint64_t key, pos, count;
   uint32_t line;               /* index of the sh_line */
   uint32_t next;               /* next counter of the same line, or NONE */
} counter;

typedef struct {
   uint32_t gen, idx;           /* a slot is used iff gen == model's gen */
} cslot;

struct sh_model {
   uint32_t line_size, line_bits;
   /* lines, for the whole run */
   sh_line  *lines;
   uint32_t  nlines, lines_cap;
   uint32_t *lslot;             /* index + 1; 0 = empty */
   uint32_t  lmask;
   uint64_t  last_line;         /* cache of the last line looked up */
   uint32_t  last_idx;          /* NONE = no cache */
   /* counters, for the current segment */
   counter  *ctr;
   uint32_t  nctr, ctr_cap;
   cslot    *cslot;
   uint32_t  cmask, gen;
   uint32_t *touched;           /* lines touched by the segment */
   uint32_t  ntouched, touched_cap;
   uint32_t *fresh;             /* lines first shared in the last segment */
   uint32_t  nfresh, fresh_cap;
   uint32_t  seg;               /* current segment number, from 1 */
   uint32_t  segments;          /* non-empty segments ended */
   uint64_t  thread_bits;       /* bit (tid & 63) of every thread */
   uint32_t  nthreads;          /* distinct tids (exact below 64) */
   /* scratch of sh_end_segment */
   counter  *tmp;
   uint32_t  tmp_cap;
};

/* ---- small helpers --------------------------------------------------------- */

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint32_t hash64(uint64_t x, uint32_t mask)
{
   x ^= x >> 31;
   x *= 0x9E3779B97F4A7C15ull;
   return (uint32_t)(x >> 32) & mask;
}

static void *grow(void *old, uint32_t n, uint32_t *cap, unsigned long elem)
{
   uint32_t new_cap = *cap ? *cap * 2 : 64;
   char *p = cs_alloc(elem * new_cap);
   unsigned long i;

   for (i = 0; i < elem * n; i++)
      p[i] = ((char *)old)[i];
   cs_free(old);
   *cap = new_cap;
   return p;
}

/* ---- the formulas ---------------------------------------------------------- */

/* Largest set of disjoint pairs of accesses by two different threads with
   at least one store among the two.  Bounds: every pair holds a store
   (<= S); pairs are pairs (<= N/2); a thread's accesses pair only with
   other threads' (<= N - N_t).  A greedy pairing reaches the smallest of
   them (checked against exhaustive search in tests/unit/test_sharing.c). */
uint64_t sh_pairs_any(uint32_t n, const uint64_t *loads, const uint64_t *stores)
{
   uint64_t all = 0, st = 0, best;
   uint32_t t;

   for (t = 0; t < n; t++) {
      all += loads[t] + stores[t];
      st += stores[t];
   }
   best = min64(st, all / 2);
   for (t = 0; t < n; t++)
      best = min64(best, all - loads[t] - stores[t]);
   return best;
}

/* Largest set of disjoint (store, load) pairs by different threads: a
   bipartite matching whose only missing edges join a thread's stores to
   its own loads, so by Hall's theorem min(S, L, min_t(S-S_t + L-L_t)). */
uint64_t sh_pairs_store_load(uint32_t n, const uint64_t *loads,
                             const uint64_t *stores)
{
   uint64_t ld = 0, st = 0, best;
   uint32_t t;

   for (t = 0; t < n; t++) {
      ld += loads[t];
      st += stores[t];
   }
   best = min64(ld, st);
   for (t = 0; t < n; t++)
      best = min64(best, (ld - loads[t]) + (st - stores[t]));
   return best;
}

/* ---- model ----------------------------------------------------------------- */

sh_model *sh_new(uint32_t line_size)
{
   sh_model *m;
   uint32_t bits = 0;

   if (line_size < 8 || line_size > 256 || (line_size & (line_size - 1)))
      cs_fail("sharing: line size must be a power of two in 8..256");
   while ((1u << bits) < line_size)
      bits++;
   m = cs_alloc(sizeof(sh_model));
   m->line_size = line_size;
   m->line_bits = bits;
   m->lmask = 1023;
   m->lslot = cs_alloc(sizeof(uint32_t) * (m->lmask + 1));
   m->cmask = 1023;
   m->cslot = cs_alloc(sizeof(cslot) * (m->cmask + 1));
   m->gen = 1;
   m->seg = 1;
   m->last_idx = NONE;
   return m;
}

void sh_delete(sh_model *m)
{
   uint32_t i;

   if (!m)
      return;
   for (i = 0; i < m->nlines; i++)
      cs_free(m->lines[i].pos);
   cs_free(m->lines);
   cs_free(m->lslot);
   cs_free(m->ctr);
   cs_free(m->cslot);
   cs_free(m->touched);
   cs_free(m->fresh);
   cs_free(m->tmp);
   cs_free(m);
}

static void rehash_lines(sh_model *m)
{
   uint32_t i, j;

   cs_free(m->lslot);
   m->lmask = m->lmask * 2 + 1;
   m->lslot = cs_alloc(sizeof(uint32_t) * (m->lmask + 1));
   for (i = 0; i < m->nlines; i++) {
      j = hash64(m->lines[i].line, m->lmask);
      while (m->lslot[j])
         j = (j + 1) & m->lmask;
      m->lslot[j] = i + 1;
   }
}

static uint32_t line_index(sh_model *m, uint64_t line)
{
   uint32_t j, idx;

   if (m->last_idx != NONE && m->last_line == line)
      return m->last_idx;
   j = hash64(line, m->lmask);
   while (m->lslot[j] && m->lines[m->lslot[j] - 1].line != line)
      j = (j + 1) & m->lmask;
   if (m->lslot[j]) {
      idx = m->lslot[j] - 1;
   } else {
      if (m->nlines == m->lines_cap)
         m->lines = grow(m->lines, m->nlines, &m->lines_cap, sizeof(sh_line));
      idx = m->nlines++;
      m->lines[idx] = (sh_line){ .line = line, .last_seg = 0, .head = NONE };
      m->lslot[j] = idx + 1;
      if (m->nlines * 2 > m->lmask)
         rehash_lines(m);
   }
   m->last_line = line;
   m->last_idx = idx;
   return idx;
}

/* First access of a line in this segment: the segment's state moves to
   "previous" if the line was touched by the segment just before. */
static void open_line(sh_model *m, sh_line *l, uint32_t idx)
{
   if (l->last_seg + 1 == m->seg) {
      l->prev_threads = l->seg_threads;
      l->prev_store = l->seg_store;
   } else {
      l->prev_threads = 0;
      l->prev_store = 0;
   }
   l->seg_threads = 0;
   l->seg_store = 0;
   l->head = NONE;
   l->last_seg = m->seg;
   if (m->ntouched == m->touched_cap)
      m->touched = grow(m->touched, m->ntouched, &m->touched_cap, sizeof(uint32_t));
   m->touched[m->ntouched++] = idx;
}

static void rehash_counters(sh_model *m)
{
   uint32_t i, j;

   cs_free(m->cslot);
   m->cmask = m->cmask * 2 + 1;
   m->cslot = cs_alloc(sizeof(cslot) * (m->cmask + 1));
   m->gen = 1;
   for (i = 0; i < m->nctr; i++) {
      counter *c = &m->ctr[i];
      j = hash64(c->key ^ ((uint64_t)c->line << 34) ^ (c->pos * 31), m->cmask);
      while (m->cslot[j].gen == m->gen)
         j = (j + 1) & m->cmask;
      m->cslot[j] = (cslot){ m->gen, i };
   }
}

static void count_access(sh_model *m, uint32_t idx, uint64_t key, uint64_t pos)
{
   uint32_t j = hash64(key ^ ((uint64_t)idx << 34) ^ (pos * 31), m->cmask);
   sh_line *l;
   counter *c;

   while (m->cslot[j].gen == m->gen) {
      c = &m->ctr[m->cslot[j].idx];
      if (c->key == key && c->line == idx && c->pos == pos) {
         c->count++;
         return;
      }
      j = (j + 1) & m->cmask;
   }
   if (m->nctr == m->ctr_cap)
      m->ctr = grow(m->ctr, m->nctr, &m->ctr_cap, sizeof(counter));
   l = &m->lines[idx];
   c = &m->ctr[m->nctr];
   *c = (counter){ .key = key, .pos = pos, .count = 1, .line = idx,
                   .next = l->head };
   l->head = m->nctr;
   m->cslot[j] = (cslot){ m->gen, m->nctr };
   m->nctr++;
   if (m->nctr * 2 > m->cmask)
      rehash_counters(m);
}

static void note_thread(sh_model *m, uint32_t tid)
{
   uint64_t bit = 1ull << (tid & 63);

   if (!(m->thread_bits & bit)) {
      m->thread_bits |= bit;
      m->nthreads++;
   }
}

static void access_part(sh_model *m, uint32_t tid, uint64_t line,
                        uint32_t off, uint32_t size, int is_store, uint64_t pos)
{
   uint32_t idx = line_index(m, line);
   sh_line *l = &m->lines[idx];
   uint64_t bit = 1ull << (tid & 63);

   if (l->last_seg != m->seg)
      open_line(m, l, idx);
   if (!(l->seg_threads & bit)) {
      l->seg_threads |= bit;
      l->threads |= bit;
      note_thread(m, tid);
   }
   l->seg_store |= is_store;
   count_access(m, idx, KEY(tid, off, size, is_store), pos);
}

void sh_access(sh_model *m, uint32_t tid, uint64_t addr, uint32_t size,
               int is_store, uint64_t pos)
{
   uint32_t off, part;

   tid &= SH_MAX_TID;
   is_store = is_store ? 1 : 0;
   while (size > 0) {
      off = (uint32_t)(addr & (m->line_size - 1));
      part = m->line_size - off;
      if (part > size)
         part = size;
      access_part(m, tid, addr >> m->line_bits, off, part, is_store, pos);
      addr += part;
      size -= part;
   }
}

/* ---- end of a segment ------------------------------------------------------ */

/* counters of one line, sorted by (offset and size, thread, kind) */
static uint64_t sort_key(const counter *c)
{
   return (KEY_GROUP(c->key) << 20) | ((uint64_t)KEY_TID(c->key) << 1)
          | KEY_STORE(c->key);
}

static void sift_down(counter *a, uint32_t root, uint32_t n)
{
   counter tmp;
   uint32_t child;

   while ((child = 2 * root + 1) < n) {
      if (child + 1 < n && sort_key(&a[child + 1]) > sort_key(&a[child]))
         child++;
      if (sort_key(&a[root]) >= sort_key(&a[child]))
         return;
      tmp = a[root]; a[root] = a[child]; a[child] = tmp;
      root = child;
   }
}

static void heap_sort(counter *a, uint32_t n)
{
   counter tmp;
   uint32_t i;

   for (i = n / 2; i-- > 0; )
      sift_down(a, i, n);
   for (i = n; i-- > 1; ) {
      tmp = a[0]; a[0] = a[i]; a[i] = tmp;
      sift_down(a, 0, i);
   }
}

static uint32_t gather(sh_model *m, const sh_line *l)
{
   uint32_t n = 0, i;

   for (i = l->head; i != NONE; i = m->ctr[i].next) {
      if (n == m->tmp_cap)
         m->tmp = grow(m->tmp, n, &m->tmp_cap, sizeof(counter));
      m->tmp[n++] = m->ctr[i];
   }
   heap_sort(m->tmp, n);
   return n;
}

/* per-thread load/store sums of a run of counters: a small table of
   threads in order of appearance (the run is sorted by thread). */
typedef struct {
   uint32_t  n, cap;
   uint32_t *tid;
   uint64_t *ld, *st;
} thread_sums;

static void sums_reset(thread_sums *s) { s->n = 0; }

static void sums_add(thread_sums *s, uint32_t tid, int store, uint64_t count)
{
   uint32_t i;

   for (i = 0; i < s->n && s->tid[i] != tid; i++)
      ;
   if (i == s->n) {
      if (s->n == s->cap) {
         uint32_t cap = s->cap;
         s->tid = grow(s->tid, s->n, &cap, sizeof(uint32_t));
         cap = s->cap;
         s->ld = grow(s->ld, s->n, &cap, sizeof(uint64_t));
         cap = s->cap;
         s->st = grow(s->st, s->n, &cap, sizeof(uint64_t));
         s->cap = cap;
      }
      s->tid[i] = tid;
      s->ld[i] = s->st[i] = 0;
      s->n++;
   }
   if (store)
      s->st[i] += count;
   else
      s->ld[i] += count;
}

static void sums_free(thread_sums *s)
{
   cs_free(s->tid);
   cs_free(s->ld);
   cs_free(s->st);
}

/* theta_s of the sorted counters c[0..n): 2 * sum of M1 per group */
static uint64_t theta_of(const counter *c, uint32_t n, thread_sums *s)
{
   uint64_t theta = 0;
   uint32_t i = 0, j;

   while (i < n) {
      sums_reset(s);
      for (j = i; j < n && KEY_GROUP(c[j].key) == KEY_GROUP(c[i].key); j++)
         sums_add(s, KEY_TID(c[j].key), KEY_STORE(c[j].key), c[j].count);
      theta += 2 * sh_pairs_store_load(s->n, s->ld, s->st);
      i = j;
   }
   return theta;
}

/* Keeps the SH_MAX_POS positions with the most accesses seen so far: a
   new position replaces the smallest kept one if it has more. */
static void add_position(sh_line *l, uint64_t pos, uint64_t count)
{
   uint32_t i, small = 0;

   if (!l->pos)
      l->pos = cs_alloc(sizeof(sh_pos) * SH_MAX_POS);
   for (i = 0; i < l->npos && l->pos[i].pos != pos; i++)
      if (l->pos[i].count < l->pos[small].count)
         small = i;
   if (i < l->npos) {
      l->pos[i].count += count;
   } else if (l->npos < SH_MAX_POS) {
      l->pos[l->npos++] = (sh_pos){ pos, count };
   } else if (count > l->pos[small].count) {
      l->other_pos += l->pos[small].count;
      l->pos[small] = (sh_pos){ pos, count };
   } else {
      l->other_pos += count;
   }
}

static int popcount64(uint64_t x)
{
   int n = 0;

   for (; x; x &= x - 1)
      n++;
   return n;
}

/* Equations (4)/(5): one transfer across the barrier before this segment. */
static int boundary_transfer(const sh_line *l)
{
   return l->prev_threads
          && popcount64(l->prev_threads | l->seg_threads) >= 2
          && (l->prev_store || l->seg_store);
}

static void note_fresh(sh_model *m, sh_line *l)
{
   if (l->first_shared)
      return;
   l->first_shared = m->seg;
   if (m->nfresh == m->fresh_cap)
      m->fresh = grow(m->fresh, m->nfresh, &m->fresh_cap, sizeof(uint32_t));
   m->fresh[m->nfresh++] = (uint32_t)(l - m->lines);
}

static void close_line(sh_model *m, sh_line *l, thread_sums *s)
{
   uint32_t n = gather(m, l), i;
   uint64_t pairs;

   if (boundary_transfer(l)) {
      l->phi++;
      l->theta++;
      note_fresh(m, l);
   }
   if (popcount64(l->seg_threads) < 2)
      return;
   note_fresh(m, l);
   sums_reset(s);
   for (i = 0; i < n; i++)
      sums_add(s, KEY_TID(m->tmp[i].key), KEY_STORE(m->tmp[i].key),
               m->tmp[i].count);
   pairs = sh_pairs_any(s->n, s->ld, s->st);
   if (pairs)
      l->phi += 2 * pairs - 1;
   l->theta += theta_of(m->tmp, n, s);
   for (i = 0; i < n; i++) {
      if (KEY_STORE(m->tmp[i].key))
         l->stores += m->tmp[i].count;
      else
         l->loads += m->tmp[i].count;
      add_position(l, m->tmp[i].pos, m->tmp[i].count);
   }
}

void sh_end_segment(sh_model *m)
{
   thread_sums s = { 0, 0, 0, 0, 0 };
   uint32_t i;

   if (m->ntouched == 0)
      return;
   m->nfresh = 0;
   for (i = 0; i < m->ntouched; i++)
      close_line(m, &m->lines[m->touched[i]], &s);
   sums_free(&s);
   m->ntouched = 0;
   m->nctr = 0;
   if (++m->gen == 0) {               /* wrapped: really empty the slots */
      for (i = 0; i <= m->cmask; i++)
         m->cslot[i].gen = 0;
      m->gen = 1;
   }
   m->seg++;
   m->segments++;
}

/* ---- results --------------------------------------------------------------- */

uint32_t sh_nlines(const sh_model *m) { return m->nlines; }

const sh_line *sh_line_at(const sh_model *m, uint32_t i) { return &m->lines[i]; }

uint64_t sh_phi_prime(const sh_line *l)
{
   return l->phi > l->theta ? l->phi - l->theta : 0;
}

void sh_set_tag(sh_model *m, uint32_t i, void *tag) { m->lines[i].tag = tag; }

uint32_t sh_fresh_shared(const sh_model *m, const uint32_t **idx)
{
   *idx = m->fresh;
   return m->nfresh;
}

uint32_t sh_segments(const sh_model *m) { return m->segments; }

uint32_t sh_nthreads(const sh_model *m) { return m->nthreads; }

uint32_t sh_line_size(const sh_model *m) { return m->line_size; }
