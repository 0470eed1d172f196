/*
** sharing.c -- the order-independent false sharing estimate (sharing.h
** states the model and its formulas).
**
** Data, by what it costs:
**   - every line touched: a record of 12 bytes (lrec), in pages of 16
**     neighbouring lines found through a hash table by page number, kept
**     for the whole run: its segment, its thread in that segment (or
**     "several"), the same of the previous segment, stores or not, and
**     where its accesses of the segment are counted;
**   - while one thread alone has touched a line in the segment, its
**     accesses are a *history*: a node of a trie of access sequences
**     (access i of the line is the child of access i-1), shared by every
**     line whose accesses came in the same order with the same keys, as a
**     loop over an array makes them.  If a second thread comes, the
**     history is replayed into the line's counters, so that they are what
**     counting every access would have made (phi and theta need the first
**     thread's counts per offset and size, the reports its counts per code
**     position; not their order: the reports sort them, close_shared).
**     The trie is emptied at every segment's end; past a budget of nodes,
**     or past OWN_NODES nodes of its own, a line whose history would need
**     a new node gets a packed record;
**   - a line whose history left the trie, while one thread alone touches
**     it: that thread's counts per key as a set, packed (sharing_pack.h:
**     per code site of the line a bit set of the offsets it touched and
**     a count of 4 or 8 bits for each), freed at the segment's end; what
**     does not fit (a count past 255, a 128th site) or a second thread
**     moves it to counters;
**   - a line that two threads touched (or whose packed record overflowed): a
**     full record (frec), found by line number: its counters of the
**     segment keyed by (thread, offset, size, kind, code position), three
**     inside the record, more in an array of its own (a hash table past
**     32) kept from segment to segment, its data's tag and its results (sh_line, made when it is
**     first shared).
** Ending a segment visits only the lines it touched (a list).  Records
** and results live in chunks, which never move: growing copies nothing,
** and pointers stay valid.  Code positions are numbered (a hash table),
** so that a key is one word.
*/
#include "sharing.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */
#include "sharing_pack.h"


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
   is one look-up.  32-bit counts: the lines two threads touch with many
   keys (xz's: 78 a line) keep 16 bytes a key, not 24; a count that
   passes the limit (2^32 - 1; less in the unit test) keeps the rest in
   a carry of the model's, exact (a segment's counts are summed at its
   end, gather_one). */
typedef struct {
   uint64_t key;
   uint32_t n[2];
} counter;

/* What a count past the limit carried: the multiples of limit + 1 of
   the line's count of key (with its kind bit) in this segment.  Few: a
   carry is four billion accesses of one instruction to one line within
   a segment. */
typedef struct {
   uint64_t line, key, high;
} carry;

/* One count with its kind, as sh_end_segment sorts them. */
typedef struct {
   uint64_t key, count;
} entry;

/* A line's record, for every line touched (so it is small).  Its one
   thread is told apart by OWNER(tid), the id's low 8 bits: ids 256 apart
   are one thread to it (the 64-bit sets of a segment's threads and the
   happens-before edges tell ids apart by tid & 63, and give up past 63). */
#define OWNER(tid) ((uint8_t)((tid) & 0xff))
#define F_SEG_ANY    0x01       /* touched in segment last_seg */
#define F_SEG_MULTI  0x02       /* ... by two or more threads */
#define F_SEG_STORE  0x04       /* ... with a store */
#define F_PREV_ANY   0x08       /* the same of the segment before it, */
#define F_PREV_MULTI 0x10       /* kept only if that segment was the one */
#define F_PREV_STORE 0x20       /* just before (equations (4), (5)) */
#define F_COUNTED    0x40       /* ref is a full record with the counters */
#define F_PACKED     0x80       /* ref is a packed record (sp_store) */
typedef struct {
   uint32_t last_seg;           /* segment of the last access */
   uint32_t ref;                /* history node (0: none yet), the full
                                   record's index if F_COUNTED, the packed
                                   record's number if F_PACKED */
   uint8_t  owner, prev_owner;  /* the one thread (OWNER) of last_seg /
                                   of the segment before, if not MULTI */
   uint8_t  flags;
   uint8_t  grown;              /* nodes its history added to the trie in
                                   last_seg (at most OWN_NODES) */
} lrec;

#define PAGE_BITS 4
#define PAGE_LINES (1u << PAGE_BITS)
#define PCACHE 64               /* pages cached: a stencil reads several
                                   rows of several arrays at once */
typedef struct {
   uint64_t page;               /* line >> PAGE_BITS */
   lrec     l[PAGE_LINES];
} lpage;

/* A slot of the pages' hash table: the page number beside its index, so
   that a probe compares in the slot and reads no page but the one found
   (xz's lines at random: the page's first bytes were a host cache miss
   of every page-cache miss). */
typedef struct {
   uint64_t page;
   uint32_t idx;                /* page index + 1; 0 = empty */
   uint32_t unused;
} lslot_t;

/* A slot of the direct-mapped cache of pages: the number and the page
   in one host line, so that the short path reads one slot (was three
   arrays: three host lines).  An empty slot's page is NO_PAGE, which no
   line's page is (an address shifted right by at least 7 bits). */
#define NO_PAGE (~(uint64_t)0)
typedef struct {
   uint64_t page;
   lpage   *ptr;                /* the page (chunks never move) */
   uint32_t first;              /* its first line's index */
   uint32_t unused;
} pcache_t;

/* A line that two threads touched in a segment, or whose history left
   the trie: its counters (the first INLINE of a segment here, as a loop
   touches few places of a line, the others in an array of their own,
   kept from segment to segment, that becomes a hash table past
   LINEAR_UPTO: lines of a hash table or a heap reused by random code get
   a hundred; the reports sort a line's counts, so their order does not
   matter), and what it keeps for the whole run. */
#define INLINE 3
typedef struct {
   uint64_t line;
   uint64_t seg_threads;        /* thread bits of the segment, if MULTI */
   uint32_t nmore, more_cap;
   uint32_t ninline;
   counter *more;
   void    *tag;                /* from the namer, or 0 */
   counter  c[INLINE];
} frec;

/* A node of the trie of histories: one access (its counting key and
   kinds: loads | stores << 1) after those of its parent. */
typedef struct {
   uint64_t key;
   uint32_t parent, kinds;
   uint32_t hint;               /* its child taken last (lines that follow
                                   one loop take the same), 0 = none */
} hnode;

/* Node 0's key: no access's (their kind bit is 0), so that the short
   path compares a hint of 0 (none) with its access's key, which fails,
   without testing the hint first. */
#define NO_NODE_KEY (~(uint64_t)0)

/* An array of elements of one size in chunks that never move. */
typedef struct {
   char   **chunk;
   uint32_t n, nchunks, cap_chunks, elem, bits;
} chunked;

/* A hash table of a chunked array's elements by line (their first field):
   index + 1, 0 = empty; at most half full. */
typedef char full_line_first[__builtin_offsetof(frec, line) == 0 ? 1 : -1];
typedef char result_line_first[__builtin_offsetof(sh_line, line) == 0 ? 1 : -1];
typedef struct {
   uint32_t *slot;
   uint32_t  mask;
} by_line;

struct sh_model {
   uint32_t line_size, line_bits;
   /* lines, for the whole run */
   chunked   pages;             /* lpage */
   lslot_t  *lslot;             /* pages by number, at most 3/4 full */
   uint32_t  lmask;
   pcache_t  pc[PCACHE];        /* direct-mapped cache of pages looked up */
   chunked   fulls;             /* frec */
   by_line   fslot;             /* full records by line */
   chunked   results;           /* sh_line of the shared lines */
   by_line   rslot;             /* and by line */
   uint32_t *touched;           /* lines touched by the segment */
   uint32_t  ntouched, touched_cap;
   uint32_t *fresh;             /* results first shared in the last segment */
   uint32_t  nfresh, fresh_cap;
   uint32_t  seg;               /* current segment number, from 1 */
   uint32_t  segments;          /* non-empty segments ended */
   uint64_t  thread_bits;       /* bit tid of every thread below 64 */
   uint64_t *high_seen;         /* bit tid - 64 of those above (made at
                                   the first: SH_MAX_TID + 1 - 64 bits) */
   uint32_t  nthreads;          /* distinct tids */
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
   /* the trie of one-thread histories of this segment (node 0: empty) */
   hnode    *node;
   uint32_t  nnodes, node_cap;
   uint32_t *hslot;             /* child node by (parent, key, kinds) */
   uint32_t  hmask;
   uint32_t  hist_limit;        /* nodes allowed; 0: the default budget */
   uint32_t *path;              /* scratch of a replay */
   uint32_t  path_cap;
   /* the packed records of this segment (freed at its end) */
   sp_store  packs;
   sh_stats  stats;
   /* counts past count_limit in this segment (count_access) */
   uint32_t  count_limit;
   carry    *carries;
   uint32_t  ncarries, carries_cap;
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

/* Chunks of 2^bits elements: small for the tables most runs need little
   of, so that a program with few lines does not pay for many. */
static void chunked_init(chunked *a, uint32_t elem, uint32_t bits)
{
   a->elem = elem;
   a->bits = bits;
}

static void *chunked_at(const chunked *a, uint32_t i)
{
   return a->chunk[i >> a->bits]
          + (unsigned long)(i & ((1u << a->bits) - 1)) * a->elem;
}

/* A new zeroed element at the end; returns its index. */
static uint32_t chunked_push(sh_model *m, chunked *a)
{
   if (a->n == a->nchunks << a->bits) {
      if (a->nchunks == a->cap_chunks) {
         a->chunk = grow(a->chunk, a->nchunks, &a->cap_chunks, sizeof(char *));
         m->bytes += a->cap_chunks * sizeof(char *) / 2;
      }
      a->chunk[a->nchunks++] = cs_alloc((unsigned long)a->elem << a->bits);
      m->bytes += (uint64_t)a->elem << a->bits;
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

static void by_line_init(sh_model *m, by_line *t)
{
   t->mask = 255;
   t->slot = cs_alloc(sizeof(uint32_t) * (t->mask + 1));
   m->bytes += sizeof(uint32_t) * (t->mask + 1);
}

static uint64_t line_of(const chunked *a, uint32_t i)
{
   return *(const uint64_t *)chunked_at(a, i);
}

/* The slot of the line's element, or the empty slot where it goes. */
static uint32_t by_line_slot(const chunked *a, const by_line *t, uint64_t line)
{
   uint32_t j = hash64(line, t->mask);

   while (t->slot[j] && line_of(a, t->slot[j] - 1) != line)
      j = (j + 1) & t->mask;
   return j;
}

static void by_line_rehash(sh_model *m, const chunked *a, by_line *t)
{
   uint32_t i;

   cs_free(t->slot);
   m->bytes += sizeof(uint32_t) * (t->mask + 1);
   t->mask = t->mask * 2 + 1;
   t->slot = cs_alloc(sizeof(uint32_t) * (t->mask + 1));
   for (i = 0; i < a->n; i++)
      t->slot[by_line_slot(a, t, line_of(a, i))] = i + 1;
}

/* The index of the line's element, made (zero but its line) if new;
   *made says which. */
static uint32_t by_line_get(sh_model *m, chunked *a, by_line *t, uint64_t line,
                            int *made)
{
   uint32_t j = by_line_slot(a, t, line), i;

   *made = !t->slot[j];
   if (t->slot[j])
      return t->slot[j] - 1;
   i = chunked_push(m, a);
   *(uint64_t *)chunked_at(a, i) = line;
   t->slot[j] = i + 1;
   if (a->n * 2 > t->mask)
      by_line_rehash(m, a, t);
   return i;
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

#define PAGE(m, i) ((lpage *)chunked_at(&(m)->pages, (i)))
#define FULL(m, i) ((frec *)chunked_at(&(m)->fulls, (i)))
#define RESULT(m, i) ((sh_line *)chunked_at(&(m)->results, (i)))

/* The record of line index idx (page index << PAGE_BITS | line in page). */
static lrec *rec_at(const sh_model *m, uint32_t idx)
{
   return &PAGE(m, idx >> PAGE_BITS)->l[idx & (PAGE_LINES - 1)];
}

static uint64_t line_at(const sh_model *m, uint32_t idx)
{
   return (PAGE(m, idx >> PAGE_BITS)->page << PAGE_BITS) | (idx & (PAGE_LINES - 1));
}

/* A packed record moved (sharing_pack.h): its line's reference. */
static void pack_moved(void *ctx, uint32_t idx, uint32_t ref)
{
   rec_at(ctx, idx)->ref = ref;
}

sh_model *sh_new(uint32_t line_size)
{
   sh_model *m;
   uint32_t bits = 0, i;

   if (line_size < 8 || line_size > 256 || (line_size & (line_size - 1)))
      cs_fail("sharing: line size must be a power of two in 8..256");
   while ((1u << bits) < line_size)
      bits++;
   m = cs_alloc(sizeof(sh_model));
   m->line_size = line_size;
   m->line_bits = bits;
   chunked_init(&m->pages, sizeof(lpage), 8);
   chunked_init(&m->fulls, sizeof(frec), 8);
   chunked_init(&m->results, sizeof(sh_line), 8);
   m->lmask = 1023;
   m->lslot = cs_alloc(sizeof(lslot_t) * (m->lmask + 1));
   m->pmask = 255;
   m->pslot = cs_alloc(sizeof(uint32_t) * (m->pmask + 1));
   m->hmask = 1023;
   m->hslot = cs_alloc(sizeof(uint32_t) * (m->hmask + 1));
   m->node_cap = 512;
   m->node = cs_alloc(sizeof(hnode) * m->node_cap);
   m->nnodes = 1;                       /* node 0: no access yet */
   m->node[0].key = NO_NODE_KEY;
   for (i = 0; i < PCACHE; i++)
      m->pc[i].page = NO_PAGE;
   m->bytes = sizeof(sh_model) + sizeof(lslot_t) * 1024 + sizeof(uint32_t) * (256 + 1024)
              + sizeof(hnode) * m->node_cap;
   by_line_init(m, &m->fslot);
   by_line_init(m, &m->rslot);
   m->seg = 1;
   m->count_limit = 0xffffffffu;
   sp_init(&m->packs, line_size, pack_moved, m);
   return m;
}

void sh_delete(sh_model *m)
{
   uint32_t i;

   if (!m)
      return;
   for (i = 0; i < m->fulls.n; i++) {
      cs_free(FULL(m, i)->more);
   }
   chunked_free(&m->pages);
   chunked_free(&m->fulls);
   for (i = 0; i < m->results.n; i++) {
      cs_free(RESULT(m, i)->touch);
      cs_free(RESULT(m, i)->pos);
   }
   chunked_free(&m->results);
   cs_free(m->lslot);
   cs_free(m->fslot.slot);
   cs_free(m->rslot.slot);
   cs_free(m->touched);
   cs_free(m->high_seen);
   cs_free(m->fresh);
   cs_free(m->pos);
   cs_free(m->pslot);
   cs_free(m->node);
   cs_free(m->hslot);
   cs_free(m->path);
   sp_fini(&m->packs);
   cs_free(m->tmp);
   cs_free(m->carries);
   cs_free(m);
}

/* ---- the line table -------------------------------------------------------- */

/* Records come in pages of PAGE_LINES neighbouring lines, found through
   the hash table by page number: a sweep over memory looks up one page
   per PAGE_LINES lines, and their records are neighbours too. */
static void rehash_lines(sh_model *m)
{
   uint32_t i, j;

   cs_free(m->lslot);
   m->bytes += sizeof(lslot_t) * (m->lmask + 1);
   m->lmask = m->lmask * 2 + 1;
   m->lslot = cs_alloc(sizeof(lslot_t) * (m->lmask + 1));
   for (i = 0; i < m->pages.n; i++) {
      j = hash64(PAGE(m, i)->page, m->lmask);
      while (m->lslot[j].idx)
         j = (j + 1) & m->lmask;
      m->lslot[j].page = PAGE(m, i)->page;
      m->lslot[j].idx = i + 1;
   }
}

/* (a multiplicative hash: arrays whose sizes are powers of two, as two
   grids of a stencil, would meet in one slot of a hash of low bits) */
static uint32_t page_cache_slot(uint64_t page)
{
   return (uint32_t)((page * 0x9E3779B97F4A7C15ull) >> 56) & (PCACHE - 1);
}

static uint32_t line_index(sh_model *m, uint64_t line)
{
   uint64_t page = line >> PAGE_BITS;
   uint32_t j, first;
   uint32_t d = page_cache_slot(page);

   if (m->pc[d].page == page)
      return m->pc[d].first + (uint32_t)(line & (PAGE_LINES - 1));
   j = hash64(page, m->lmask);
   while (m->lslot[j].idx && m->lslot[j].page != page)
      j = (j + 1) & m->lmask;
   if (m->lslot[j].idx) {
      first = (m->lslot[j].idx - 1) << PAGE_BITS;
   } else {
      uint32_t i = chunked_push(m, &m->pages);
      PAGE(m, i)->page = page;
      m->lslot[j].page = page;
      m->lslot[j].idx = i + 1;
      first = i << PAGE_BITS;
      if (m->pages.n * 4 > m->lmask * 3)
         rehash_lines(m);
   }
   m->pc[d].page = page;
   m->pc[d].first = first;
   m->pc[d].ptr = PAGE(m, first >> PAGE_BITS);
   return first + (uint32_t)(line & (PAGE_LINES - 1));
}

/* ---- full records and results, by line ------------------------------------ */

/* The line's full record, made the first time it needs one. */
static uint32_t full_of(sh_model *m, uint64_t line)
{
   int made;

   return by_line_get(m, &m->fulls, &m->fslot, line, &made);
}

/* The line's full record, 0 if it has none. */
static const frec *full_if_any(const sh_model *m, uint64_t line)
{
   uint32_t j = by_line_slot(&m->fulls, &m->fslot, line);

   return m->fslot.slot[j] ? FULL(m, m->fslot.slot[j] - 1) : 0;
}

/* A line's counters past the inline ones: an array searched linearly
   (most recent first) while it has room for at most LINEAR_UPTO, as most
   lines need few, then a hash table (at most three quarters full) whose
   empty slots have the key NO_KEY (a counter's key has its kind bit 0). */
#define LINEAR_UPTO 32
#define NO_KEY (~(uint64_t)0)

static int hashed(const frec *r) { return r->more_cap > LINEAR_UPTO; }

static void clear_more(frec *r)
{
   uint32_t i;

   if (hashed(r))
      for (i = 0; i < r->more_cap; i++)
         r->more[i].key = NO_KEY;
   r->nmore = 0;
}

/* The slot of key in r's hash table, or the empty slot where it goes. */
static uint32_t more_slot(const frec *r, uint64_t key)
{
   uint32_t mask = r->more_cap - 1, j = hash64(key, mask);

   while (r->more[j].key != key && r->more[j].key != NO_KEY)
      j = (j + 1) & mask;
   return j;
}

/* Whether slot i of r's counters holds one. */
static int more_used(const frec *r, uint32_t i)
{
   return hashed(r) ? r->more[i].key != NO_KEY : i < r->nmore;
}

/* r's counters with room for twice as many (from 8), moved over. */
static void grow_more(sh_model *m, frec *r)
{
   frec old = *r;
   uint32_t i;

   r->more_cap = old.more_cap ? old.more_cap * 2 : 8;
   r->more = cs_alloc(sizeof(counter) * r->more_cap);
   m->bytes += sizeof(counter) * (r->more_cap - old.more_cap);
   if (hashed(r))
      for (i = 0; i < r->more_cap; i++)
         r->more[i].key = NO_KEY;
   for (i = 0; i < old.more_cap; i++)
      if (more_used(&old, i))
         r->more[hashed(r) ? more_slot(r, old.more[i].key) : i] = old.more[i];
   cs_free(old.more);
}

/* The counter of key among r's, made if new. */
static counter *more_counter(sh_model *m, frec *r, uint64_t key)
{
   uint32_t j;
   counter *c;

   if (hashed(r)) {
      j = more_slot(r, key);
      if (r->more[j].key == key)
         return &r->more[j];
   } else {
      for (j = r->nmore; j-- > 0; )
         if (r->more[j].key == key)
            return &r->more[j];
   }
   if (r->nmore == r->more_cap || (hashed(r) && (r->nmore + 1) * 4 > r->more_cap * 3))
      grow_more(m, r);
   c = &r->more[hashed(r) ? more_slot(r, key) : r->nmore];
   *c = (counter){ key, { 0, 0 } };
   r->nmore++;
   return c;
}

/* ---- counts past the limit -------------------------------------------------- */

/* The carry of the line's count of key (kind bit included); 0 if none. */
static carry *carry_of(const sh_model *m, uint64_t line, uint64_t key)
{
   uint32_t i;

   for (i = 0; i < m->ncarries; i++)
      if (m->carries[i].line == line && m->carries[i].key == key)
         return &m->carries[i];
   return 0;
}

/* n more of counter c's kind, the multiples of count_limit + 1 carried. */
static void add_wide(sh_model *m, const frec *r, counter *c, uint32_t kind, uint32_t n)
{
   uint64_t unit = (uint64_t)m->count_limit + 1, sum = c->n[kind] + (uint64_t)n;
   carry *k;

   if (sum < unit) {
      c->n[kind] = (uint32_t)sum;
      return;
   }
   if (!(k = carry_of(m, r->line, c->key | kind))) {
      if (m->ncarries == m->carries_cap) {
         m->carries = grow(m->carries, m->ncarries, &m->carries_cap, sizeof(carry));
         m->bytes += m->carries_cap * sizeof(carry) / 2;
      }
      k = &m->carries[m->ncarries++];
      *k = (carry){ r->line, c->key | kind, 0 };
   }
   k->high += sum / unit;
   c->n[kind] = (uint32_t)(sum % unit);
}

/* A counter's count of a kind in the segment, its carry included. */
static uint64_t count_of(const sh_model *m, const frec *r, const counter *c,
                         uint32_t kind)
{
   const carry *k = m->ncarries ? carry_of(m, r->line, c->key | kind) : 0;

   return c->n[kind] + (k ? k->high * ((uint64_t)m->count_limit + 1) : 0);
}

static void count_access(sh_model *m, frec *r, uint64_t key,
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
   } else {
      c = more_counter(m, r, key);
   }
found:
   if ((uint64_t)c->n[0] + loads > m->count_limit
       || (uint64_t)c->n[1] + stores > m->count_limit) {
      add_wide(m, r, c, 0, loads);
      add_wide(m, r, c, 1, stores);
      return;
   }
   c->n[0] += loads;
   c->n[1] += stores;
}

/* ---- packed records --------------------------------------------------------- */

/* One access into the line's packed record: 0 if it does not fit
   (nothing changed then). */
static int pack_count(sh_model *m, lrec *r, uint32_t tid, uint32_t pos_id,
                      uint32_t off, uint32_t size, uint32_t kinds)
{
   sp_site site = { pos_id, (uint16_t)size, (uint16_t)kinds };

   return sp_count(&m->packs, &r->ref, tid, &site, off);
}

static void unpack_one(void *ctx, uint32_t tid, const sp_site *s, uint32_t off,
                       uint32_t count)
{
   void **mf = ctx;

   count_access(mf[0], mf[1], KEY(s->pos_id, tid, off, s->size, 0),
                s->kinds & 1 ? count : 0, s->kinds & 2 ? count : 0);
}

/* The packed record's counts into f's counters: what counting the
   accesses would have made (but for their order, which the reports do
   not follow). */
static void unpack(sh_model *m, frec *f, uint32_t ref)
{
   void *mf[2] = { m, f };

   sp_each(&m->packs, ref, unpack_one, mf);
   sp_free(&m->packs, ref);
}

/* ---- the trie of one-thread histories -------------------------------------- */

static uint32_t node_hash(uint32_t parent, uint64_t key, uint32_t kinds,
                          uint32_t mask)
{
   return hash64(key ^ ((uint64_t)parent << 2 | kinds) * 0xD6E8FEB86659FD93ull,
                 mask);
}

/* The slot of parent's child (key, kinds), or the empty slot where it
   goes. */
static uint32_t node_slot(const sh_model *m, uint32_t parent, uint64_t key,
                          uint32_t kinds)
{
   uint32_t j = node_hash(parent, key, kinds, m->hmask);
   const hnode *n;

   for (; m->hslot[j]; j = (j + 1) & m->hmask) {
      n = &m->node[m->hslot[j]];
      if (n->parent == parent && n->key == key && n->kinds == kinds)
         break;
   }
   return j;
}

static void rehash_nodes(sh_model *m)
{
   uint32_t i;
   const hnode *n;

   cs_free(m->hslot);
   m->bytes += sizeof(uint32_t) * (m->hmask + 1);
   m->hmask = m->hmask * 2 + 1;
   m->hslot = cs_alloc(sizeof(uint32_t) * (m->hmask + 1));
   for (i = 1; i < m->nnodes; i++) {
      n = &m->node[i];
      m->hslot[node_slot(m, n->parent, n->key, n->kinds)] = i;
   }
}

/* The budget of nodes in a segment: what a loop's lines share is a few
   hundred; histories of their own (random accesses) would need a node
   per access, and get packed records instead: a line's own nodes are at
   most OWN_NODES (a loop's first lines lay its path down OWN_NODES
   accesses each, the others follow it), and all lines' past 16,384 and
   an eighth of a node per line touched (the stencils need at most 6,500;
   the nodes of random lines that went to packed records stay till the
   segment's end, dead).  (A node costs about 40 bytes with its slots;
   a packed record of such a line about 100 in all.) */
#define OWN_NODES 8
static uint32_t node_budget(const sh_model *m)
{
   return m->hist_limit ? m->hist_limit : (1u << 14) + m->ntouched / 8;
}

/* A new node in slot j; 0 if the budget is spent. */
static uint32_t new_node(sh_model *m, uint32_t j, uint32_t parent, uint64_t key,
                         uint32_t kinds)
{
   uint32_t i;

   if (m->nnodes >= node_budget(m))
      return 0;
   if (m->nnodes == m->node_cap) {
      m->node = grow(m->node, m->nnodes, &m->node_cap, sizeof(hnode));
      m->bytes += m->node_cap * sizeof(hnode) / 2;
   }
   i = m->nnodes++;
   m->node[i] = (hnode){ key, parent, kinds, 0 };
   m->hslot[j] = i;
   if (m->nnodes * 2 > m->hmask)
      rehash_nodes(m);
   if (m->nnodes > m->stats.peak_nodes)
      m->stats.peak_nodes = m->nnodes;
   return i;
}

/* Empties the trie (at a segment's end: every line's history is over).
   Clearing only the slots used keeps a segment of few lines cheap after
   one of many. */
static void clear_nodes(sh_model *m)
{
   uint32_t i, j;
   const hnode *n;

   if (m->nnodes * 4 > m->hmask) {
      for (j = 0; j <= m->hmask; j++)
         m->hslot[j] = 0;
   } else {
      for (i = 1; i < m->nnodes; i++) {
         n = &m->node[i];
         j = node_hash(n->parent, n->key, n->kinds, m->hmask);
         while (m->hslot[j] != i)
            j = (j + 1) & m->hmask;
         m->hslot[j] = 0;
      }
   }
   m->nnodes = 1;
   m->node[0].hint = 0;
}

/* The line's counters from its history: its accesses replayed in their
   order, so that the counters are the ones counting them would have
   made. */
/* The history's nodes from its first access on, into m->path (the
   number of them). */
static uint32_t history_path(sh_model *m, uint32_t node)
{
   uint32_t n = 0, i;

   for (i = node; i; i = m->node[i].parent) {
      if (n == m->path_cap)
         m->path = grow(m->path, n, &m->path_cap, sizeof(uint32_t));
      m->path[n++] = i;
   }
   return n;
}

static void replay(sh_model *m, frec *f, uint32_t node)
{
   uint32_t n = history_path(m, node);

   while (n-- > 0) {
      const hnode *h = &m->node[m->path[n]];
      count_access(m, f, h->key, h->kinds & 1, h->kinds >> 1);
   }
}

/* From now on the line's accesses of this segment go to its counters:
   its history or its packed record first. */
static frec *go_counted(sh_model *m, lrec *r, uint64_t line)
{
   uint32_t i = full_of(m, line);
   frec *f = FULL(m, i);

   f->ninline = 0;
   clear_more(f);
   if (r->flags & F_PACKED)
      unpack(m, f, r->ref);
   else
      replay(m, f, r->ref);
   r->ref = i;
   r->flags = (uint8_t)((r->flags & ~F_PACKED) | F_COUNTED);
   m->stats.replays++;
   return f;
}

/* The history replayed into a packed record of tid; 0 if it does not
   fit (the record is dropped then). */
static int go_packed(sh_model *m, lrec *r, uint64_t line, uint32_t tid)
{
   uint32_t n, ref;

   if (!m->packs.max_count)
      return 0;
   ref = sp_new(&m->packs, tid, line_index(m, line));
   n = history_path(m, r->ref);
   while (n-- > 0) {
      const hnode *h = &m->node[m->path[n]];
      sp_site site = { KEY_POSID(h->key), (uint16_t)(((h->key >> 1) & 0xff) + 1),
                       (uint16_t)h->kinds };
      if (!sp_count(&m->packs, &ref, KEY_TID(h->key), &site,
                    (uint32_t)(h->key >> 9) & 0xff)) {
         sp_free(&m->packs, ref);
         return 0;
      }
   }
   r->ref = ref;
   r->flags |= F_PACKED;
   m->stats.packed++;
   return 1;
}

/* The history extended by one access: 0 if it went to the counters.
   The parent's hint first: lines of one loop take the same child. */
static int extend_history(sh_model *m, lrec *r, uint64_t line, uint64_t key,
                          uint32_t kinds)
{
   uint32_t i = m->node[r->ref].hint, j;

   if (i && m->node[i].key == key && m->node[i].kinds == kinds) {
      r->ref = i;
      return 1;
   }
   j = node_slot(m, r->ref, key, kinds);
   i = m->hslot[j];
   if (!i && r->grown < OWN_NODES) {
      i = new_node(m, j, r->ref, key, kinds);
      r->grown++;
   }
   if (i) {
      m->node[r->ref].hint = i;
      r->ref = i;
      return 1;
   }
   if (!go_packed(m, r, line, KEY_TID(key)))
      go_counted(m, r, line);
   return 0;
}

/* ---- accesses -------------------------------------------------------------- */

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

/* Is tid (folded) seen for the first time in the run? (It is now.) */
static int first_sight(sh_model *m, uint32_t tid)
{
   uint64_t *word = &m->thread_bits, bit;

   if (tid > 63) {
      if (!m->high_seen)
         m->high_seen = cs_alloc((SH_MAX_TID + 1 - 64) / 8);
      word = &m->high_seen[(tid - 64) / 64];
   }
   bit = 1ull << (tid & 63);
   if (*word & bit)
      return 0;
   *word |= bit;
   return 1;
}

static void count_thread(sh_model *m, uint32_t tid)
{
   if (first_sight(m, tid))
      m->nthreads++;
}

/* An id past 63 may reach only lines whose 64-bit set of threads has
   its bit already (new_accessor is not called): counted here, at each
   access or block of such a thread. */
static void count_high_thread(sh_model *m, uint32_t tid)
{
   if (tid > 63)
      count_thread(m, tid);
}

/* A thread's first access to a line in the segment. */
static void new_accessor(sh_model *m, uint32_t tid)
{
   m->accessors |= 1ull << (tid & 63);
   if (tid > 63)
      m->hb_lost = 1;
   count_thread(m, tid);
}

/* First access of a line in this segment: the segment's state moves to
   "previous" if the line was touched by the segment just before. */
static void open_line(sh_model *m, lrec *r, uint32_t idx, uint32_t tid)
{
   uint8_t f = r->flags;

   if (r->last_seg + 1 == m->seg && !m->after_fork_join) {
      r->flags = (uint8_t)((f & (F_SEG_ANY | F_SEG_MULTI | F_SEG_STORE)) << 3);
      r->prev_owner = r->owner;
   } else {
      r->flags = 0;
   }
   r->flags |= F_SEG_ANY;
   r->owner = OWNER(tid);
   r->ref = 0;
   r->grown = 0;
   r->last_seg = m->seg;
   if (m->ntouched == m->touched_cap) {
      m->touched = grow(m->touched, m->ntouched, &m->touched_cap, sizeof(uint32_t));
      m->bytes += m->touched_cap * sizeof(uint32_t) / 2;
   }
   m->touched[m->ntouched++] = idx;
   new_accessor(m, tid);
}

/* Another thread than the line's one in this segment: the data is
   surely allocated now (named once per line), and the line's accesses
   are counted from here on, its history first. */
static void second_thread(sh_model *m, lrec *r, uint64_t line, uint32_t tid)
{
   frec *f;

   if (!(r->flags & F_COUNTED))
      go_counted(m, r, line);
   f = FULL(m, r->ref);
   if (!f->tag && m->namer)
      f->tag = m->namer(m->namer_ctx, line << m->line_bits);
   f->seg_threads = (1ull << (r->owner & 63)) | (1ull << (tid & 63));
   r->flags |= F_SEG_MULTI;
   new_accessor(m, tid);
}

/* The line's threads of the segment after one more access of tid. */
static void note_thread(sh_model *m, lrec *r, uint64_t line, uint32_t tid)
{
   frec *f;

   if (!(r->flags & F_SEG_MULTI)) {
      if (r->owner != OWNER(tid))
         second_thread(m, r, line, tid);
      return;
   }
   f = FULL(m, r->ref);
   if (!(f->seg_threads & (1ull << (tid & 63)))) {
      f->seg_threads |= 1ull << (tid & 63);
      new_accessor(m, tid);
   }
}

/* One access's part in the line of addr, at off with size (not the
   site's, for a part): six arguments, so that the block's loop passes
   them all in registers. */
static void access_part(sh_model *m, uint32_t tid, uint64_t addr, uint32_t off,
                        uint32_t size, const sh_site *s)
{
   uint64_t line = addr >> m->line_bits;
   uint32_t idx = line_index(m, line);
   uint32_t loads = s->kinds & 1, stores = s->kinds >> 1, posid = s->pos_id;
   lrec *r = rec_at(m, idx);
   uint64_t key;

   if (r->last_seg != m->seg)
      open_line(m, r, idx, tid);
   else
      note_thread(m, r, line, tid);
   if (stores)
      r->flags |= F_SEG_STORE;
   key = KEY(posid, tid, off, size, 0);
   if (!(r->flags & (F_COUNTED | F_PACKED))
       && extend_history(m, r, line, key, loads | stores << 1))
      return;
   if ((r->flags & F_PACKED)
       && pack_count(m, r, tid, posid, off, size, loads | stores << 1))
      return;
   if (!(r->flags & F_COUNTED))
      go_counted(m, r, line);
   count_access(m, FULL(m, r->ref), key, loads, stores);
}

/* (tid already folded: tid & SH_MAX_TID) */
static void access_parts(sh_model *m, uint32_t tid, uint64_t addr, uint32_t size,
                         uint32_t loads, uint32_t stores, uint32_t posid)
{
   uint32_t off, part;
   sh_site site = { posid, 0, (uint16_t)(loads | stores << 1) };

   count_high_thread(m, tid);
   while (size > 0) {
      off = (uint32_t)(addr & (m->line_size - 1));
      part = m->line_size - off;
      if (part > size)
         part = size;
      access_part(m, tid, addr, off, part, &site);
      addr += part;
      size -= part;
   }
}

void sh_access(sh_model *m, uint32_t tid, uint64_t addr, uint32_t size,
               int is_store, uint64_t pos)
{
   sp_tidy(&m->packs);          /* (between accesses: no record held) */
   access_parts(m, tid & SH_MAX_TID, addr, size, is_store ? 0 : 1, is_store ? 1 : 0,
                position_id(m, pos));
}

void sh_modify(sh_model *m, uint32_t tid, uint64_t addr, uint32_t size, uint64_t pos)
{
   sp_tidy(&m->packs);
   access_parts(m, tid & SH_MAX_TID, addr, size, 1, 1, position_id(m, pos));
}

uint32_t sh_position(sh_model *m, uint64_t pos)
{
   return position_id(m, pos);
}

/* An access to a line whose thread has touched it before in this
   segment, and whose accesses are counted (a full record) or packed:
   what access_part does then, without its look-ups.  0 if not done. */
static int counted_fast(sh_model *m, lrec *r, uint64_t tkey, uint32_t tid,
                        const sh_site *s, uint32_t off, uint32_t size)
{
   uint8_t flags = r->flags;

   if (flags & F_COUNTED) {
      frec *f = FULL(m, r->ref);
      if ((flags & F_SEG_MULTI) ? !(f->seg_threads & (1ull << (tid & 63)))
                                : r->owner != OWNER(tid))
         return 0;
      count_access(m, f, KEY(s->pos_id, 0, off, size, 0) | tkey, s->kinds & 1,
                   s->kinds >> 1);
   } else if ((flags & (F_PACKED | F_SEG_MULTI)) == F_PACKED && r->owner == OWNER(tid)) {
      if (!pack_count(m, r, tid, s->pos_id, off, size, s->kinds))
         return 0;
   } else {
      return 0;
   }
   if (s->kinds & 2)
      r->flags |= F_SEG_STORE;
   return 1;
}

/* What the short path reads of the model and of the block's thread,
   kept in locals for a block: the short path stores to a line record
   (its flags are a byte, which may alias anything), and the compiler
   would otherwise read each of these again at every access. */
typedef struct {
   uint32_t line_bits, off_mask;
   uint32_t seg;
   uint32_t tid;                /* folded: tid & SH_MAX_TID */
   uint8_t  owner;              /* OWNER(tid), as line records hold it */
   uint64_t tkey;               /* the thread's part of a counting key */
   const hnode *node;           /* the trie (moves when it grows: read
                                   again after the slow path) */
} fast_ctx;

/* The common access, done here without a call: its line's page is in
   the page cache, the access is in one line, its thread alone has
   touched the line in this segment, and its history goes on the way the
   last line's went from the same node (the parent's hint).  Exactly what
   access_part would do then: the history moves to the hint, the store
   flag is set.  Lines with counters or packed ones go to counted_fast.
   0 if the access is not such.  off, size: the access's (or its part's,
   when the caller splits one across a line's end) place in the line.  A
   hint of 0 (none) reads node 0, whose key is no access's. */
static inline int history_fast(sh_model *m, const fast_ctx *c, const sh_site *s,
                               uint64_t addr, uint32_t off, uint32_t size)
{
   uint64_t line = addr >> c->line_bits, page = line >> PAGE_BITS, key;
   const pcache_t *p = &m->pc[page_cache_slot(page)];
   lrec *r;
   uint32_t h;
   const hnode *n;

   if (p->page != page)
      return 0;
   r = &p->ptr->l[line & (PAGE_LINES - 1)];
   if (r->last_seg != c->seg)
      return 0;
   if (r->flags & (F_COUNTED | F_PACKED | F_SEG_MULTI))
      return counted_fast(m, r, c->tkey, c->tid, s, off, size);
   if (r->owner != c->owner)
      return 0;
   h = c->node[r->ref].hint;
   n = &c->node[h];
   key = KEY(s->pos_id, 0, off, size, 0) | c->tkey;
   if (n->key != key || n->kinds != s->kinds)
      return 0;
   r->ref = h;
   if (s->kinds & 2)
      r->flags |= F_SEG_STORE;
   return 1;
}

/* Each access, or each part of one across a line's end (a stencil's
   unaligned vector loads: 2.2 M of examples/jacobi.c's 23 M), tries the
   short path (one inline copy of history_fast), else takes access_part
   as access_parts would, in the same order. */
void sh_access_block(sh_model *m, uint32_t tid, const sh_site *site,
                     const uint64_t *addr, uint32_t n)
{
   uint32_t i, off, size, part;
   uint64_t a;
   fast_ctx c;

   sp_tidy(&m->packs);          /* (between blocks: no record held) */
   c.line_bits = m->line_bits;
   c.off_mask = m->line_size - 1;
   c.seg = m->seg;
   c.tid = tid & SH_MAX_TID;
   c.owner = OWNER(tid);
   c.tkey = KEY(0, c.tid, 0, 1, 0);
   c.node = m->node;
   count_high_thread(m, c.tid);
   for (i = 0; i < n; i++) {
      a = addr[i];
      if (a == SH_SKIPPED)
         continue;
      size = site[i].size;
      off = (uint32_t)a & c.off_mask;
      part = size < c.off_mask + 1 - off ? size : c.off_mask + 1 - off;
      for (;;) {
         if (!history_fast(m, &c, &site[i], a, off, part)) {
            access_part(m, c.tid, a, off, part, &site[i]);
            c.node = m->node;   /* (the trie may have grown) */
         }
         if (part == size)
            break;
         a += part;             /* the rest, from the next line's start */
         size -= part;
         off = 0;
         part = size < c.off_mask + 1 ? size : c.off_mask + 1;
      }
   }
}

/* ---- end of a segment ------------------------------------------------------ */

/* A line's counts of a segment in a canonical order: by offset and size,
   thread, kind, then the code position's address.  Every entry's key
   differs, so the order is total: it does not depend on the order in
   which the keys came (nor on the counters' order), and neither do the
   reports, which list a line's positions and touched bytes in it. */
static uint64_t sort_key(const entry *c)
{
   return (KEY_GROUP(c->key) << 20) | ((uint64_t)KEY_TID(c->key) << 1)
          | KEY_STORE(c->key);
}

static int entry_after(const sh_model *m, const entry *a, const entry *b)
{
   uint64_t ka = sort_key(a), kb = sort_key(b);

   if (ka != kb)
      return ka > kb;
   return m->pos[KEY_POSID(a->key)] > m->pos[KEY_POSID(b->key)];
}

static void sift_down(const sh_model *m, entry *a, uint32_t root, uint32_t n)
{
   entry tmp;
   uint32_t child;

   while ((child = 2 * root + 1) < n) {
      if (child + 1 < n && entry_after(m, &a[child + 1], &a[child]))
         child++;
      if (!entry_after(m, &a[child], &a[root]))
         return;
      tmp = a[root]; a[root] = a[child]; a[child] = tmp;
      root = child;
   }
}

static void heap_sort(const sh_model *m, entry *a, uint32_t n)
{
   entry tmp;
   uint32_t i;

   for (i = n / 2; i-- > 0; )
      sift_down(m, a, i, n);
   for (i = n; i-- > 1; ) {
      tmp = a[0]; a[0] = a[i]; a[i] = tmp;
      sift_down(m, a, 0, i);
   }
}

static void gather_one(sh_model *m, uint32_t *n, const frec *r, const counter *c)
{
   uint32_t kind;
   uint64_t count;

   for (kind = 0; kind < 2; kind++) {
      if (!(count = count_of(m, r, c, kind)))
         continue;
      if (*n == m->tmp_cap)
         m->tmp = grow(m->tmp, *n, &m->tmp_cap, sizeof(entry));
      m->tmp[*n] = (entry){ c->key | kind, count };
      (*n)++;
   }
}

static uint32_t gather(sh_model *m, const frec *r)
{
   uint32_t n = 0, i;

   for (i = 0; i < r->ninline; i++)
      gather_one(m, &n, r, &r->c[i]);
   for (i = 0; i < r->more_cap; i++)
      if (more_used(r, i))
         gather_one(m, &n, r, &r->more[i]);
   heap_sort(m, m->tmp, n);
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

/* A line's positions with room for twice as many (from 2, at most
   SH_MAX_POS). */
static sh_pos *grow_positions(sh_model *m, sh_pos *old, uint32_t n, uint32_t *cap)
{
   uint32_t new_cap = *cap ? *cap * 2 : 2, i;
   sh_pos *p = cs_alloc(sizeof(sh_pos) * new_cap);

   for (i = 0; i < n; i++)
      p[i] = old[i];
   cs_free(old);
   m->bytes += sizeof(sh_pos) * (new_cap - *cap);
   *cap = new_cap;
   return p;
}

/* Keeps the SH_MAX_POS positions with the most accesses seen so far: a
   new position replaces the smallest kept one if it has more. */
static void add_position(sh_model *m, sh_line *l, uint64_t pos, uint64_t count)
{
   uint32_t i, small = 0;

   for (i = 0; i < l->npos && l->pos[i].pos != pos; i++)
      if (l->pos[i].count < l->pos[small].count)
         small = i;
   if (i < l->npos) {
      l->pos[i].count += count;
   } else if (l->npos < SH_MAX_POS) {
      if (l->npos == l->pos_cap)
         l->pos = grow_positions(m, l->pos, l->npos, &l->pos_cap);
      l->pos[l->npos++] = (sh_pos){ pos, count };
   } else if (count > l->pos[small].count) {
      l->other_pos += l->pos[small].count;
      l->pos[small] = (sh_pos){ pos, count };
   } else {
      l->other_pos += count;
   }
}

/* Equations (4)/(5): one transfer across the barrier before this
   segment, if the two segments' threads are two or more and one of them
   stored. */
static int boundary_transfer(const lrec *r)
{
   return (r->flags & F_PREV_ANY)
          && ((r->flags & (F_PREV_MULTI | F_SEG_MULTI)) || r->prev_owner != r->owner)
          && (r->flags & (F_PREV_STORE | F_SEG_STORE));
}

/* The line's results, made when it is first shared (with its full
   record's tag, if it has one).  A line whose only sharing is a transfer
   across barriers gets no full record: it needs no counters. */
static sh_line *result_of(sh_model *m, uint64_t line)
{
   int made;
   uint32_t i = by_line_get(m, &m->results, &m->rslot, line, &made);
   sh_line *l = RESULT(m, i);
   const frec *f;

   if (!made)
      return l;
   f = full_if_any(m, line);
   l->first_shared = m->seg;
   l->tag = f ? f->tag : 0;
   if (m->nfresh == m->fresh_cap) {
      m->fresh = grow(m->fresh, m->nfresh, &m->fresh_cap, sizeof(uint32_t));
      m->bytes += m->fresh_cap * sizeof(uint32_t) / 2;
   }
   m->fresh[m->nfresh++] = i;
   return l;
}

/* ---- which bytes each thread's code touched -------------------------------- */

/* A line's touches are records of 1 + 2 * words 64-bit words: the
   position's number and the thread (posid | tid << 32; OTHER_ID for
   SH_OTHER_POS), the loaded bytes, the stored bytes. */
#define OTHER_ID 0xffffffffu
#define TOUCH_WHO(posid, tid) ((uint64_t)(posid) | (uint64_t)(tid) << 32)
static uint32_t touch_words(const sh_model *m)
{
   return m->line_size > 64 ? m->line_size / 64 : 1;
}

static uint64_t *touch_rec(const sh_model *m, const sh_line *l, uint32_t k)
{
   return l->touch + (uint64_t)k * (1 + 2 * touch_words(m));
}

/* The record of (tid, posid), made if new; past SH_MAX_TOUCH positions
   the thread's record of other positions. */
static uint64_t *touch_of(sh_model *m, sh_line *l, uint32_t tid, uint32_t posid)
{
   uint32_t k, rec = 1 + 2 * touch_words(m), i;
   uint64_t *t;

   for (k = 0; k < l->ntouch; k++) {
      t = touch_rec(m, l, k);
      if (t[0] == TOUCH_WHO(posid, tid))
         return t;
   }
   if (l->ntouch >= SH_MAX_TOUCH && posid != OTHER_ID)
      return touch_of(m, l, tid, OTHER_ID);
   if (l->ntouch == l->touch_cap) {
      uint32_t cap = l->touch_cap, words = l->ntouch * rec;
      uint64_t *p = cs_alloc(sizeof(uint64_t) * rec * (cap ? cap * 2 : 2));
      for (i = 0; i < words; i++)
         p[i] = l->touch[i];
      cs_free(l->touch);
      l->touch = p;
      l->touch_cap = cap ? cap * 2 : 2;
      m->bytes += sizeof(uint64_t) * rec * (cap ? cap : 2);
   }
   t = touch_rec(m, l, l->ntouch++);
   for (i = 0; i < rec; i++)
      t[i] = 0;
   t[0] = TOUCH_WHO(posid, tid);
   return t;
}

/* Bytes [off, off + size) into a bit set of the line. */
static void set_bytes(uint64_t *set, uint32_t off, uint32_t size)
{
   uint32_t b;

   for (b = off; b < off + size; b++)
      set[b / 64] |= 1ull << (b % 64);
}

/* A counter's key: its bytes into the touches of its thread and
   position. */
static void note_touch(sh_model *m, sh_line *l, uint64_t key)
{
   uint64_t *t = touch_of(m, l, KEY_TID(key), KEY_POSID(key));
   uint32_t off = (uint32_t)(key >> 9) & 0xff, size = (uint32_t)((key >> 1) & 0xff) + 1;

   set_bytes(t + 1 + (KEY_STORE(key) ? touch_words(m) : 0), off, size);
}

uint32_t sh_touches(const sh_line *l) { return l->ntouch; }

void sh_touch_at(const sh_model *m, const sh_line *l, uint32_t k, uint64_t *pos,
                 uint32_t *tid, const uint64_t **loaded, const uint64_t **stored)
{
   const uint64_t *t = touch_rec(m, l, k);
   uint32_t posid = (uint32_t)t[0];

   *pos = posid == OTHER_ID ? SH_OTHER_POS : m->pos[posid];
   *tid = (uint32_t)(t[0] >> 32);
   *loaded = t + 1;
   *stored = t + 1 + touch_words(m);
}

/* phi, theta and the code positions of a segment in which two or more
   threads touched the line (its accesses are all in its counters). */
static void close_shared(sh_model *m, frec *f, thread_sums *s)
{
   uint32_t n, i;
   uint64_t pairs;
   sh_line *l = result_of(m, f->line);

   n = gather(m, f);
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
      add_position(m, l, m->pos[KEY_POSID(m->tmp[i].key)], m->tmp[i].count);
      note_touch(m, l, m->tmp[i].key);
   }
}

static void close_line(sh_model *m, uint32_t idx, thread_sums *s)
{
   lrec *r = rec_at(m, idx);
   sh_line *l;

   if (boundary_transfer(r)) {
      l = result_of(m, line_at(m, idx));
      l->phi++;
      l->theta++;
   }
   if (r->flags & F_SEG_MULTI)
      close_shared(m, FULL(m, r->ref), s);
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
      close_line(m, m->touched[i], &s);
   sums_free(&s);
   m->ntouched = 0;
   m->ncarries = 0;             /* (the counts of a segment are summed) */
   clear_nodes(m);
   sp_reset(&m->packs);
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

/* (the packed records, freed at every segment's end, at their peak) */
uint64_t sh_memory(const sh_model *m) { return m->bytes + m->packs.peak_bytes; }

void sh_set_history_limit(sh_model *m, uint32_t nodes)
{
   m->hist_limit = nodes;
}

void sh_set_count_limit(sh_model *m, uint32_t limit)
{
   m->count_limit = limit ? limit : 0xffffffffu;
}

void sh_set_packed_limits(sh_model *m, uint32_t max_count, uint32_t max_sites)
{
   m->packs.max_count = max_count > SP_MAX_COUNT ? SP_MAX_COUNT : max_count;
   m->packs.max_sites = max_sites > SP_MAX_SITES ? SP_MAX_SITES : max_sites;
}

sh_stats sh_get_stats(const sh_model *m)
{
   sh_stats st = m->stats;
   uint32_t i;

   st.packs_now = m->packs.live;
   st.peak_packs = m->packs.peak_live;
   st.peak_pack_bytes = m->packs.peak_bytes;
   st.peak_pack_used = m->packs.peak_used;
   st.pack_grows = m->packs.grows;
   st.pack_compactions = m->packs.compactions;
   st.pack_compact_moved = m->packs.compact_moved;
   st.pack_grows_in_place = m->packs.grows_in_place;

   st.lines = (uint64_t)m->pages.n * PAGE_LINES;
   st.line_bytes = (uint64_t)m->pages.nchunks * (sizeof(lpage) << m->pages.bits)
                   + sizeof(lslot_t) * (m->lmask + 1);
   st.fulls = m->fulls.n;
   st.full_bytes = (uint64_t)m->fulls.nchunks * (sizeof(frec) << m->fulls.bits)
                   + sizeof(uint32_t) * (m->fslot.mask + 1);
   st.node_bytes = (uint64_t)m->node_cap * sizeof(hnode)
                   + sizeof(uint32_t) * (m->hmask + 1);
   st.counter_bytes = 0;
   st.counters = 0;
   for (i = 0; i < m->fulls.n; i++) {
      st.counter_bytes += (uint64_t)FULL(m, i)->more_cap * sizeof(counter);
      st.counters += FULL(m, i)->ninline + FULL(m, i)->nmore;
   }
   st.results = m->results.n;
   st.result_bytes = (uint64_t)m->results.nchunks * (sizeof(sh_line) << m->results.bits);
   for (i = 0; i < m->results.n; i++)
      st.result_bytes += (uint64_t)RESULT(m, i)->pos_cap * sizeof(sh_pos)
                         + (uint64_t)RESULT(m, i)->touch_cap * sizeof(uint64_t)
                           * (1 + 2 * touch_words(m));
   return st;
}
