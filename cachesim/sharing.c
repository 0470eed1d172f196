/*
** sharing.c -- the order-independent false sharing estimate (sharing.h
** states the model and its formulas).
**
** Data: a hash table of lines (pages of 16 lines -> index of their
** records, kept for the whole run: the line's state in the current and the previous
** segment, and the current segment's counters, keyed by (thread, offset,
** size, kind, code position): three inside the record, more in an array
** of the line's own).  Ending a segment visits only the lines it touched
** (a list); a line's counters are emptied when it is next touched.  What
** a shared line accumulates (sh_line) is allocated when it is first
** shared.  Records and results live in chunks of CHUNK elements, which
** never move: growing copies nothing, and pointers stay valid.  Code
** positions are numbered (a hash table), so that a key is one word.
*/
#include "sharing.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */

#define NONE 0xffffffffu

/* counter key: position id << 33 | thread << 17 | offset << 9 |
   (size - 1) << 1 | store; a code position is numbered when first seen */
#define KEY(posid, tid, off, size, st) \
   (((uint64_t)(posid) << 33) | ((uint64_t)(tid) << 17) | ((uint64_t)(off) << 9) | \
    ((uint64_t)((size) - 1) << 1) | (uint64_t)(st))
#define KEY_POSID(k) ((uint32_t)((k) >> 33))
#define KEY_TID(k)   ((uint32_t)((k) >> 17) & 0xffff)
#define KEY_GROUP(k) (((k) >> 1) & 0xffff)      /* offset and size */
#define KEY_STORE(k) ((uint32_t)((k) & 1))

/* A line's counts of one (position, thread, offset, size): loads n[0]
   and stores n[1] (the key's kind bit is 0), so that a read-modify-write
   is one look-up. */
typedef struct {
   uint64_t key, n[2];
} counter;

/* One count with its kind, as sh_end_segment sorts them. */
typedef struct {
   uint64_t key, count;
} entry;

/* A line's state, for the whole run.  Its first INLINE counters of a
   segment live here (a loop touches few places of a line: one memory
   access finds them), the others in an array of its own, kept from
   segment to segment (searched linearly, most recent first). */
#define INLINE 3
typedef struct {
   uint64_t line;
   uint64_t seg_threads, prev_threads;   /* thread bits: this/previous segment */
   uint32_t last_seg;           /* segment of the last access */
   uint32_t result;             /* its sh_line + 1, 0 until shared */
   uint8_t  seg_store, prev_store;       /* stored in this/previous segment */
   uint8_t  ninline;
   uint32_t nmore, more_cap;
   counter *more;
   void    *tag;                /* from the namer, or 0 */
   counter  c[INLINE];
} lrec;

/* An array of elements of one size in chunks that never move. */
#define CHUNK_BITS 12
#define CHUNK (1u << CHUNK_BITS)
typedef struct {
   char   **chunk;
   uint32_t n, nchunks, cap_chunks, elem;
} chunked;

struct sh_model {
   uint32_t line_size, line_bits;
   /* lines, for the whole run */
   chunked   recs;              /* lrec */
   uint32_t *lslot;             /* index + 1; 0 = empty */
   uint32_t  lmask;
   uint64_t  last_line;         /* cache of the last page looked up */
   uint32_t  last_idx;          /* its first record; NONE = no cache */
   chunked   results;           /* sh_line of the shared lines */
   uint32_t *touched;           /* lines touched by the segment */
   uint32_t  ntouched, touched_cap;
   uint32_t *fresh;             /* results first shared in the last segment */
   uint32_t  nfresh, fresh_cap;
   uint32_t  seg;               /* current segment number, from 1 */
   uint32_t  segments;          /* non-empty segments ended */
   uint64_t  thread_bits;       /* bit (tid & 63) of every thread */
   uint32_t  nthreads;          /* distinct tids (exact below 64) */
   uint64_t  bytes;             /* allocated */
   sh_namer  namer;
   void     *namer_ctx;
   /* code positions by number */
   uint64_t *pos;
   uint32_t  npos, pos_cap;
   uint32_t *pslot;             /* number + 1; 0 = empty */
   uint32_t  pmask;
   uint64_t  pcache_pos[256];   /* direct-mapped: position -> number + 1 */
   uint32_t  pcache_id[256];
   /* scratch of sh_end_segment */
   entry    *tmp;
   uint32_t  tmp_cap;
   /* happens-before of thread creation and join (sh_thread_*): bits by
      thread id, valid while every id is below 64 */
   uint64_t  live;              /* threads created and not exited */
   uint64_t  accessors;         /* threads that accessed in this segment */
   uint64_t  known[64];         /* per thread: threads whose whole work in
                                   this segment it has joined (directly or
                                   through its creator and joinees) */
   int       hb_lost;           /* an id above 63, or an id reused while its
                                   earlier thread's work is unjoined: no
                                   fork/join cut until the next barrier */
   int       after_fork_join;   /* this segment began at a fork or a join */
};

/* ---- small helpers --------------------------------------------------------- */

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint32_t hash64(uint64_t x, uint32_t mask)
{
   x ^= x >> 31;
   x *= 0x9E3779B97F4A7C15ull;
   return (uint32_t)(x >> 32) & mask;
}

/* A doubled copy of an array (lists, scratch, a line's counters): from
   8 elements, as most lines need few. */
static void *grow(void *old, uint32_t n, uint32_t *cap, unsigned long elem)
{
   uint32_t new_cap = *cap ? *cap * 2 : 8;
   uint64_t *p = cs_alloc(elem * new_cap);
   const uint64_t *from = old;
   unsigned long i, words = (elem * n + 7) / 8;

   for (i = 0; i < words; i++)
      p[i] = from[i];
   cs_free(old);
   *cap = new_cap;
   return p;
}

static void chunked_init(chunked *a, uint32_t elem) { a->elem = elem; }

static void *chunked_at(const chunked *a, uint32_t i)
{
   return a->chunk[i >> CHUNK_BITS] + (unsigned long)(i & (CHUNK - 1)) * a->elem;
}

/* A new zeroed element at the end; returns its index. */
static uint32_t chunked_push(sh_model *m, chunked *a)
{
   if (a->n == a->nchunks * CHUNK) {
      if (a->nchunks == a->cap_chunks) {
         a->chunk = grow(a->chunk, a->nchunks, &a->cap_chunks, sizeof(char *));
         m->bytes += a->cap_chunks * sizeof(char *) / 2;
      }
      a->chunk[a->nchunks++] = cs_alloc((unsigned long)a->elem * CHUNK);
      m->bytes += (uint64_t)a->elem * CHUNK;
   }
   return a->n++;
}

static void chunked_free(chunked *a)
{
   uint32_t i;

   for (i = 0; i < a->nchunks; i++)
      cs_free(a->chunk[i]);
   cs_free(a->chunk);
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

#define REC(m, i) ((lrec *)chunked_at(&(m)->recs, (i)))
#define RESULT(m, i) ((sh_line *)chunked_at(&(m)->results, (i)))

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
   chunked_init(&m->recs, sizeof(lrec));
   chunked_init(&m->results, sizeof(sh_line));
   m->lmask = 1023;
   m->lslot = cs_alloc(sizeof(uint32_t) * (m->lmask + 1));
   m->pmask = 255;
   m->pslot = cs_alloc(sizeof(uint32_t) * (m->pmask + 1));
   m->bytes = sizeof(sh_model) + sizeof(uint32_t) * 1024;
   m->seg = 1;
   m->last_idx = NONE;
   return m;
}

void sh_delete(sh_model *m)
{
   uint32_t i;

   if (!m)
      return;
   for (i = 0; i < m->recs.n; i++)
      cs_free(REC(m, i)->more);
   chunked_free(&m->recs);
   chunked_free(&m->results);
   cs_free(m->lslot);
   cs_free(m->touched);
   cs_free(m->fresh);
   cs_free(m->pos);
   cs_free(m->pslot);
   cs_free(m->tmp);
   cs_free(m);
}

/* Records come in pages of PAGE_LINES neighbouring lines, found through
   the hash table by page number: a sweep over memory looks up one page
   per PAGE_LINES lines, and their records are neighbours too. */
#define PAGE_BITS 4
#define PAGE_LINES (1u << PAGE_BITS)

static void rehash_lines(sh_model *m)
{
   uint32_t i, j;

   cs_free(m->lslot);
   m->bytes += sizeof(uint32_t) * (m->lmask + 1);
   m->lmask = m->lmask * 2 + 1;
   m->lslot = cs_alloc(sizeof(uint32_t) * (m->lmask + 1));
   for (i = 0; i < m->recs.n; i += PAGE_LINES) {
      j = hash64(REC(m, i)->line >> PAGE_BITS, m->lmask);
      while (m->lslot[j])
         j = (j + 1) & m->lmask;
      m->lslot[j] = i + 1;
   }
}

/* The first record of a new page (CHUNK is a multiple of PAGE_LINES, so
   a page's records are contiguous). */
static uint32_t new_page(sh_model *m, uint64_t page)
{
   uint32_t first = 0, k;

   for (k = 0; k < PAGE_LINES; k++) {
      uint32_t i = chunked_push(m, &m->recs);
      if (k == 0)
         first = i;
      REC(m, i)->line = (page << PAGE_BITS) + k;
   }
   return first;
}

static uint32_t line_index(sh_model *m, uint64_t line)
{
   uint64_t page = line >> PAGE_BITS;
   uint32_t j, first;

   if (m->last_idx != NONE && m->last_line == page)
      return m->last_idx + (uint32_t)(line & (PAGE_LINES - 1));
   j = hash64(page, m->lmask);
   while (m->lslot[j] && REC(m, m->lslot[j] - 1)->line >> PAGE_BITS != page)
      j = (j + 1) & m->lmask;
   if (m->lslot[j]) {
      first = m->lslot[j] - 1;
   } else {
      first = new_page(m, page);
      m->lslot[j] = first + 1;
      if ((m->recs.n / PAGE_LINES) * 2 > m->lmask)
         rehash_lines(m);
   }
   m->last_line = page;
   m->last_idx = first;
   return first + (uint32_t)(line & (PAGE_LINES - 1));
}

/* First access of a line in this segment: the segment's state moves to
   "previous" if the line was touched by the segment just before. */
static void open_line(sh_model *m, lrec *r, uint32_t idx)
{
   if (r->last_seg + 1 == m->seg && !m->after_fork_join) {
      r->prev_threads = r->seg_threads;
      r->prev_store = r->seg_store;
   } else {
      r->prev_threads = 0;
      r->prev_store = 0;
   }
   r->seg_threads = 0;
   r->seg_store = 0;
   r->ninline = 0;
   r->nmore = 0;
   r->last_seg = m->seg;
   if (m->ntouched == m->touched_cap) {
      m->touched = grow(m->touched, m->ntouched, &m->touched_cap, sizeof(uint32_t));
      m->bytes += m->touched_cap * sizeof(uint32_t) / 2;
   }
   m->touched[m->ntouched++] = idx;
}

static void count_access(sh_model *m, lrec *r, uint64_t key,
                         uint32_t loads, uint32_t stores)
{
   uint32_t k;
   counter *c;

   for (k = 0; k < r->ninline; k++)
      if (r->c[k].key == key) {
         c = &r->c[k];
         goto found;
      }
   if (r->ninline < INLINE) {
      c = &r->c[r->ninline++];
      *c = (counter){ key, { 0, 0 } };
      goto found;
   }
   for (k = r->nmore; k-- > 0; )
      if (r->more[k].key == key) {
         c = &r->more[k];
         goto found;
      }
   if (r->nmore == r->more_cap) {
      r->more = grow(r->more, r->nmore, &r->more_cap, sizeof(counter));
      m->bytes += r->more_cap * sizeof(counter) / 2;
   }
   c = &r->more[r->nmore++];
   *c = (counter){ key, { 0, 0 } };
found:
   c->n[0] += loads;
   c->n[1] += stores;
}

static void rehash_positions(sh_model *m)
{
   uint32_t i, j;

   cs_free(m->pslot);
   m->pmask = m->pmask * 2 + 1;
   m->pslot = cs_alloc(sizeof(uint32_t) * (m->pmask + 1));
   m->bytes += sizeof(uint32_t) * (m->pmask + 1) / 2;
   for (i = 0; i < m->npos; i++) {
      j = hash64(m->pos[i], m->pmask);
      while (m->pslot[j])
         j = (j + 1) & m->pmask;
      m->pslot[j] = i + 1;
   }
}

/* The number of a code position (few, and used again and again: a small
   direct-mapped cache in front of the hash table). */
static uint32_t position_id(sh_model *m, uint64_t pos)
{
   uint32_t d = (uint32_t)(pos ^ (pos >> 8)) & 255, j;

   if (m->pcache_pos[d] == pos && m->pcache_id[d])
      return m->pcache_id[d] - 1;
   j = hash64(pos, m->pmask);
   while (m->pslot[j] && m->pos[m->pslot[j] - 1] != pos)
      j = (j + 1) & m->pmask;
   if (!m->pslot[j]) {
      if (m->npos == m->pos_cap) {
         m->pos = grow(m->pos, m->npos, &m->pos_cap, sizeof(uint64_t));
         m->bytes += m->pos_cap * sizeof(uint64_t) / 2;
      }
      m->pos[m->npos] = pos;
      m->pslot[j] = ++m->npos;
      if (m->npos * 2 > m->pmask)
         rehash_positions(m);
      j = hash64(pos, m->pmask);
      while (m->pos[m->pslot[j] - 1] != pos)
         j = (j + 1) & m->pmask;
   }
   m->pcache_pos[d] = pos;
   m->pcache_id[d] = m->pslot[j];
   return m->pslot[j] - 1;
}

static void note_thread(sh_model *m, uint32_t tid)
{
   uint64_t bit = 1ull << (tid & 63);

   if (!(m->thread_bits & bit)) {
      m->thread_bits |= bit;
      m->nthreads++;
   }
}

static void access_part(sh_model *m, uint32_t tid, uint64_t line, uint32_t off,
                        uint32_t size, uint32_t loads, uint32_t stores, uint64_t pos)
{
   uint32_t idx = line_index(m, line);
   lrec *r = REC(m, idx);
   uint64_t bit = 1ull << (tid & 63);

   if (r->last_seg != m->seg)
      open_line(m, r, idx);
   if (!(r->seg_threads & bit)) {
      m->accessors |= bit;
      if (tid > 63)
         m->hb_lost = 1;
      if (r->seg_threads && !r->tag && m->namer)
         r->tag = m->namer(m->namer_ctx, line << m->line_bits);
      r->seg_threads |= bit;
      note_thread(m, tid);
   }
   r->seg_store |= stores != 0;
   count_access(m, r, KEY(position_id(m, pos), tid, off, size, 0), loads, stores);
}

static void access_parts(sh_model *m, uint32_t tid, uint64_t addr, uint32_t size,
                         uint32_t loads, uint32_t stores, uint64_t pos)
{
   uint32_t off, part;

   tid &= SH_MAX_TID;
   while (size > 0) {
      off = (uint32_t)(addr & (m->line_size - 1));
      part = m->line_size - off;
      if (part > size)
         part = size;
      access_part(m, tid, addr >> m->line_bits, off, part, loads, stores, pos);
      addr += part;
      size -= part;
   }
}

void sh_access(sh_model *m, uint32_t tid, uint64_t addr, uint32_t size,
               int is_store, uint64_t pos)
{
   access_parts(m, tid, addr, size, is_store ? 0 : 1, is_store ? 1 : 0, pos);
}

void sh_modify(sh_model *m, uint32_t tid, uint64_t addr, uint32_t size, uint64_t pos)
{
   access_parts(m, tid, addr, size, 1, 1, pos);
}

/* ---- end of a segment ------------------------------------------------------ */

/* counters of one line, sorted by (offset and size, thread, kind) */
static uint64_t sort_key(const entry *c)
{
   return (KEY_GROUP(c->key) << 20) | ((uint64_t)KEY_TID(c->key) << 1)
          | KEY_STORE(c->key);
}

static void sift_down(entry *a, uint32_t root, uint32_t n)
{
   entry tmp;
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

static void heap_sort(entry *a, uint32_t n)
{
   entry tmp;
   uint32_t i;

   for (i = n / 2; i-- > 0; )
      sift_down(a, i, n);
   for (i = n; i-- > 1; ) {
      tmp = a[0]; a[0] = a[i]; a[i] = tmp;
      sift_down(a, 0, i);
   }
}

static void gather_one(sh_model *m, uint32_t *n, const counter *c)
{
   uint32_t kind;

   for (kind = 0; kind < 2; kind++) {
      if (!c->n[kind])
         continue;
      if (*n == m->tmp_cap)
         m->tmp = grow(m->tmp, *n, &m->tmp_cap, sizeof(entry));
      m->tmp[*n] = (entry){ c->key | kind, c->n[kind] };
      (*n)++;
   }
}

static uint32_t gather(sh_model *m, const lrec *r)
{
   uint32_t n = 0, i;

   for (i = 0; i < r->ninline; i++)
      gather_one(m, &n, &r->c[i]);
   for (i = 0; i < r->nmore; i++)
      gather_one(m, &n, &r->more[i]);
   heap_sort(m->tmp, n);
   return n;
}

/* per-thread load/store sums of a run of counters: a small table of
   threads in order of appearance. */
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
static uint64_t theta_of(const entry *c, uint32_t n, thread_sums *s)
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
static int boundary_transfer(const lrec *r)
{
   return r->prev_threads
          && popcount64(r->prev_threads | r->seg_threads) >= 2
          && (r->prev_store || r->seg_store);
}

/* The line's results, made when it is first shared. */
static sh_line *result_of(sh_model *m, lrec *r)
{
   uint32_t i;
   sh_line *l;

   if (r->result)
      return RESULT(m, r->result - 1);
   i = chunked_push(m, &m->results);
   r->result = i + 1;
   l = RESULT(m, i);
   l->line = r->line;
   l->first_shared = m->seg;
   l->tag = r->tag;
   if (m->nfresh == m->fresh_cap) {
      m->fresh = grow(m->fresh, m->nfresh, &m->fresh_cap, sizeof(uint32_t));
      m->bytes += m->fresh_cap * sizeof(uint32_t) / 2;
   }
   m->fresh[m->nfresh++] = i;
   return l;
}

static void close_line(sh_model *m, lrec *r, thread_sums *s)
{
   uint32_t n, i;
   uint64_t pairs;
   sh_line *l;

   if (boundary_transfer(r)) {
      l = result_of(m, r);
      l->phi++;
      l->theta++;
   }
   if (popcount64(r->seg_threads) < 2)
      return;
   l = result_of(m, r);
   n = gather(m, r);
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
      add_position(l, m->pos[KEY_POSID(m->tmp[i].key)], m->tmp[i].count);
   }
}

/* Everything before a cut happens before everything after it: the
   segment's record of who saw whose work starts afresh. */
static void forget_order(sh_model *m)
{
   uint32_t t;

   m->accessors = 0;
   m->hb_lost = 0;
   for (t = 0; t < 64; t++)
      m->known[t] = 0;
}

/* Ends a non-empty segment; the next one counts the transfer of
   equations (4) and (5) across the cut unless it is a fork or join. */
static void end_segment(sh_model *m, int fork_join)
{
   thread_sums s = { 0, 0, 0, 0, 0 };
   uint32_t i;

   forget_order(m);
   if (m->ntouched == 0)
      return;
   m->nfresh = 0;
   for (i = 0; i < m->ntouched; i++)
      close_line(m, REC(m, m->touched[i]), &s);
   sums_free(&s);
   m->ntouched = 0;
   m->seg++;
   m->segments++;
   m->after_fork_join = fork_join;
}

void sh_end_segment(sh_model *m) { end_segment(m, 0); }

void sh_end_fork_join(sh_model *m) { end_segment(m, 1); }

/* ---- happens-before of thread creation and join ---------------------------- */

static uint64_t tbit(uint32_t tid) { return 1ull << tid; }

/* Thread a runs alone and has joined every other thread that worked in
   the segment: all of the segment happens before all that follows. */
static int settled(const sh_model *m, uint32_t a)
{
   return !m->hb_lost && a < 64 && m->live == tbit(a)
          && (m->accessors & ~m->known[a] & ~tbit(a)) == 0;
}

int sh_thread_created(sh_model *m, uint32_t parent, uint32_t child)
{
   int cut = 0;

   if (child > 63 || (parent != SH_NO_THREAD && parent > 63)) {
      m->hb_lost = 1;
      return 0;
   }
   if (parent != SH_NO_THREAD) {
      m->live |= tbit(parent);          /* the first thread is never created */
      if (settled(m, parent)) {
         sh_end_fork_join(m);
         cut = 1;
      }
   }
   /* the id's earlier thread worked in this segment, unjoined by the
      creator: a join of the new one would claim to have seen that work */
   if ((m->accessors & tbit(child))
       && (parent == SH_NO_THREAD || !(m->known[parent] & tbit(child))))
      m->hb_lost = 1;
   m->live |= tbit(child);
   m->known[child] = parent == SH_NO_THREAD ? 0 : m->known[parent];
   return cut;
}

void sh_thread_exited(sh_model *m, uint32_t tid)
{
   if (tid < 64)
      m->live &= ~tbit(tid);
}

int sh_thread_joined(sh_model *m, uint32_t joiner, uint32_t joined)
{
   if (joiner > 63 || joined > 63) {
      m->hb_lost = 1;
      return 0;
   }
   m->known[joiner] |= tbit(joined) | m->known[joined];
   if (!settled(m, joiner))
      return 0;
   sh_end_fork_join(m);
   return 1;
}

/* ---- results --------------------------------------------------------------- */

uint32_t sh_nlines(const sh_model *m) { return m->results.n; }

const sh_line *sh_line_at(const sh_model *m, uint32_t i) { return RESULT(m, i); }

void sh_set_tag(sh_model *m, uint32_t i, void *tag) { RESULT(m, i)->tag = tag; }

void sh_set_namer(sh_model *m, sh_namer namer, void *ctx)
{
   m->namer = namer;
   m->namer_ctx = ctx;
}

uint32_t sh_fresh_shared(const sh_model *m, const uint32_t **idx)
{
   *idx = m->fresh;
   return m->nfresh;
}

uint64_t sh_phi_prime(const sh_line *l)
{
   return l->phi > l->theta ? l->phi - l->theta : 0;
}

uint32_t sh_segments(const sh_model *m) { return m->segments; }

uint32_t sh_nthreads(const sh_model *m) { return m->nthreads; }

uint32_t sh_line_size(const sh_model *m) { return m->line_size; }

uint64_t sh_memory(const sh_model *m) { return m->bytes; }
