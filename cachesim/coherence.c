/*
** coherence.c -- the cores and the coherence directory of
** --private-caches=yes (the model is stated in coherence.h).
**
** The directory is in two parts.  Every line has a 16-bit state
** (cc_state: its owner, and whether some core has a lost record of it),
** in chunks of 64 Ki lines (4 MiB of 64-byte lines) made by the first
** store to one of their lines, found through a hash table of chunks and,
** inline (coherence.h), a direct-mapped cache of them: a load miss or a
** store of a line nobody else touched reads the one state and is done,
** without a call and without a table of megabytes to search (a host
** cache miss each).  2 bytes per line of the memory written.  The lost
** records of a line are in an open-addressing hash table of entries
** (linear probing), made when a store invalidates a copy.  Entries are
** removed only by a sweep, which rebuilds the table when it is 3/4 full:
** every entry without lost records goes, and the table doubles only if
** half of it is still in use.
*/
#include "coherence.h"

/* A core that lost a line to another core's store, and the bytes written
   by other cores since (bit per granule). */
typedef struct {
   uint32_t core;
   uint64_t written;
} cc_lost;

typedef struct {
   uint64_t line;      /* line number, CC_NO_LINE: unused */
   uint32_t n_lost, cap_lost;
   cc_lost *lost;
} cc_entry;

/* A chunk of line states (coherence.h: cc_state): CC_LOST while the
   line's entry has lost records. */
typedef struct {
   uint64_t  key;      /* line >> CC_CHUNK_BITS, CC_NO_LINE: unused */
   cc_state *state;    /* CC_CHUNK_LINES states */
} cc_chunk;

struct cc_sys {
   cc_hot    hot;             /* first: the inline test's (coherence.h) */
   cc_core **cores;
   unsigned  n_cores, cap_cores;
   int       gran_shift;      /* bytes per mask bit = 1 << gran_shift */
   cc_entry *tab;             /* lines with lost records */
   uint64_t  tab_mask;        /* capacity - 1 */
   uint64_t  used;            /* entries in the table */
   cc_chunk *chunks;          /* the line states' chunks, by key */
   uint64_t  chunks_mask, n_chunks;
   cc_stats  st;
};

/* A copy of the array old (n_used elements of elem bytes) with room for
   cap elements; old is freed. */
static void *grown(void *old, unsigned n_used, unsigned cap, unsigned long elem)
{
   unsigned char *a = cs_alloc(elem * cap);
   const unsigned char *o = old;
   unsigned long i;

   for (i = 0; i < n_used * elem; i++)
      a[i] = o[i];
   if (old)
      cs_free(old);
   return a;
}

/* ------------------------------------------------------------------------
** Cores
*/

/* The state's owner code of core id: 0 beyond what CC_OWNER holds (then
   the line has no owner: its stores ask the other cores, which is
   exact). */
static cc_state owner_code(unsigned id)
{
   return id < CC_OWNER - 1 ? (cc_state)(id + 1) : 0;
}

static cc_core *core_new(cs_sim *sim, unsigned id)
{
   cc_core *c = cs_alloc(sizeof(cc_core));

   c->sim = sim;
   c->id = id;
   c->code = owner_code(id);
   return c;
}

static void grow_cores(cc_sys *sys, unsigned n)
{
   unsigned cap = sys->cap_cores ? sys->cap_cores : 8;

   while (cap < n)
      cap *= 2;
   sys->cores = grown(sys->cores, sys->n_cores, cap, sizeof(cc_core *));
   sys->cap_cores = cap;
}

cc_core *cc_core_of(cc_sys *sys, unsigned k)
{
   if (k < sys->n_cores && sys->cores[k])
      return sys->cores[k];
   if (k >= sys->cap_cores)
      grow_cores(sys, k + 1);
   if (k >= sys->n_cores)
      sys->n_cores = k + 1;
   sys->cores[k] = core_new(cs_new_core(sys->cores[0]->sim), k);
   return sys->cores[k];
}

int cc_core_exists(const cc_sys *sys, unsigned k)
{
   return k < sys->n_cores && sys->cores[k] != 0;
}

unsigned cc_n_cores(const cc_sys *sys)
{
   return sys->n_cores;
}

/* ------------------------------------------------------------------------
** Directory
*/

static uint64_t hash_line(uint64_t line)
{
   line ^= line >> 29;
   line *= 0xbf58476d1ce4e5b9ull;
   return line ^ (line >> 32);
}

/* Both of the directory's tables (lines with lost records, chunks of
   line states) are open-addressed by a 64-bit key with linear probing;
   an entry's first member is its key, CC_NO_LINE in a free slot. These
   three serve both; always inline, so that with the entry's size a
   constant each call is the typed loop it stands for. */
static void *table_new(uint64_t cap, unsigned long size)
{
   unsigned char *tab = cs_alloc(size * cap);
   uint64_t i;

   for (i = 0; i < cap; i++)
      *(uint64_t *)(tab + i * size) = CC_NO_LINE;
   return tab;
}

/* key's slot, or the free one where it would go. */
static inline __attribute__((always_inline))
void *table_slot(void *tab, uint64_t mask, unsigned long size, uint64_t key)
{
   uint64_t i = hash_line(key) & mask;

   for (;;) {
      uint64_t *slot_key = (uint64_t *)((unsigned char *)tab + i * size);
      if (*slot_key == key || *slot_key == CC_NO_LINE)
         return slot_key;
      i = (i + 1) & mask;
   }
}

/* A table of cap slots holding old's entries (old_mask + 1 slots); old
   is freed. */
static inline __attribute__((always_inline))
void *table_moved(void *old, uint64_t old_mask, uint64_t cap,
                  unsigned long size)
{
   unsigned char *tab = table_new(cap, size);
   uint64_t i;

   for (i = 0; i <= old_mask; i++) {
      unsigned char *e = (unsigned char *)old + i * size;
      if (*(uint64_t *)e != CC_NO_LINE)
         __builtin_memcpy(table_slot(tab, cap - 1, size, *(uint64_t *)e),
                          e, size);
   }
   cs_free(old);
   return tab;
}

static cc_entry *probe(cc_sys *sys, uint64_t line)
{
   return table_slot(sys->tab, sys->tab_mask, sizeof(cc_entry), line);
}

static void free_entry(cc_entry *e)
{
   if (e->lost)
      cs_free(e->lost);
   e->lost = 0;
   e->n_lost = e->cap_lost = 0;
   e->line = CC_NO_LINE;
}

static void rehash(cc_sys *sys, uint64_t cap)
{
   sys->tab = table_moved(sys->tab, sys->tab_mask, cap, sizeof(cc_entry));
   sys->tab_mask = cap - 1;
}

/* The table is 3/4 full: only the entries with lost records stay (they
   must see every later store); double if still crowded. */
static void sweep(cc_sys *sys)
{
   uint64_t i, n = sys->tab_mask + 1;

   sys->st.sweeps++;
   for (i = 0; i < n; i++) {
      cc_entry *e = &sys->tab[i];
      if (e->line == CC_NO_LINE || e->n_lost)
         continue;
      free_entry(e);
      sys->used--;
   }
   rehash(sys, sys->used * 2 >= n ? n * 2 : n);
}

static cc_entry *entry_of(cc_sys *sys, uint64_t line)
{
   cc_entry *e = probe(sys, line);

   if (e->line == line)
      return e;
   if ((sys->used + 1) * 4 > (sys->tab_mask + 1) * 3) {
      sweep(sys);
      e = probe(sys, line);
   }
   e->line = line;
   sys->used++;
   if (sys->used > sys->st.entries_max)
      sys->st.entries_max = sys->used;
   return e;
}

/* ------------------------------------------------------------------------
** Line states
*/

static cc_chunk *chunk_slot(cc_sys *sys, uint64_t key)
{
   return table_slot(sys->chunks, sys->chunks_mask, sizeof(cc_chunk), key);
}

/* The table of chunks is kept at most half full. */
static void grow_chunks(cc_sys *sys)
{
   uint64_t cap = (sys->chunks_mask + 1) * 2;

   sys->chunks = table_moved(sys->chunks, sys->chunks_mask, cap,
                             sizeof(cc_chunk));
   sys->chunks_mask = cap - 1;
}

/* The states of chunk key, made (all 0) if make, else 0 when none. */
static cc_state *chunk_of(cc_sys *sys, uint64_t key, int make)
{
   cc_chunk *ch = chunk_slot(sys, key);

   if (ch->key == key)
      return ch->state;
   if (!make)
      return 0;
   if ((sys->n_chunks + 1) * 2 > sys->chunks_mask + 1) {
      grow_chunks(sys);
      ch = chunk_slot(sys, key);
   }
   ch->key = key;
   ch->state = cs_alloc(sizeof(cc_state) * CC_CHUNK_LINES);
   sys->n_chunks++;
   return ch->state;
}

static void forget_cached_chunks(cc_sys *sys)
{
   unsigned k;
   for (k = 0; k < CC_CHUNK_CACHE; k++) {
      sys->hot.chunk[k].key = CC_NO_LINE;
      sys->hot.chunk[k].state = 0;
   }
}

/* The line's state; with make 0, NULL for a line no store reached (its
   state would be 0).  The chunk's cache entry is set, also for a chunk
   that does not exist (NULL), and always when one is made. */
static cc_state *state_of(cc_sys *sys, uint64_t line, int make)
{
   uint64_t key = line >> CC_CHUNK_BITS;
   unsigned k = (unsigned)key & (CC_CHUNK_CACHE - 1);
   cc_state *st = sys->hot.chunk[k].state;

   if (sys->hot.chunk[k].key != key || (!st && make)) {
      st = chunk_of(sys, key, make);
      sys->hot.chunk[k].key = key;
      sys->hot.chunk[k].state = st;
   }
   return st ? &st[line & (CC_CHUNK_LINES - 1)] : 0;
}

/* ------------------------------------------------------------------------
** Lost records
*/

static void lost_add(cc_entry *e, uint32_t core, uint64_t written)
{
   if (e->n_lost == e->cap_lost) {
      e->cap_lost = e->cap_lost ? e->cap_lost * 2 : 2;
      e->lost = grown(e->lost, e->n_lost, e->cap_lost, sizeof(cc_lost));
   }
   e->lost[e->n_lost].core = core;
   e->lost[e->n_lost].written = written;
   e->n_lost++;
}

/* Takes core's lost record of the line, if any: 1 and *written, else 0. */
static int lost_take(cc_sys *sys, cc_entry *e, uint32_t core,
                     uint64_t *written)
{
   uint32_t i;

   for (i = 0; i < e->n_lost; i++) {
      if (e->lost[i].core == core) {
         *written = e->lost[i].written;
         e->lost[i] = e->lost[--e->n_lost];
         sys->st.lost_now--;
         return 1;
      }
   }
   return 0;
}

/* ------------------------------------------------------------------------
** Accesses
*/

/* Mask bits of the bytes [first, last] of a line (offsets in the line). */
static uint64_t byte_bits(const cc_sys *sys, unsigned first, unsigned last)
{
   unsigned f = first >> sys->gran_shift, l = last >> sys->gran_shift;
   uint64_t hi = l >= 63 ? ~0ull : (2ull << l) - 1;
   return hi & (~0ull << f);
}

/* Invalidates the line in every core but c that holds it (each core's D1
   is asked: exact, and no holder list to keep on every load); returns
   the copies invalidated.  Each loses the line with the store's bytes,
   in the line's entry *e (made here at the first). */
static unsigned invalidate_others(cc_sys *sys, uint64_t line, cc_entry **e,
                                  cc_core *c, uint64_t bits)
{
   uint64_t addr = line << sys->hot.line_bits;
   unsigned k, n = 0;

   for (k = 0; k < sys->n_cores; k++) {
      cc_core *o = sys->cores[k];
      if (!o || o == c)
         continue;
      if (o->sim->collect != c->sim->collect)
         cs_set_collect(o->sim, c->sim->collect);
      if (cs_d1_invalidate(o->sim, addr)) {
         if (!*e)
            *e = entry_of(sys, line);
         lost_add(*e, k, bits);
         sys->st.lost_now++;
         n++;
      }
   }
   return n;
}

/* A store of the bytes `bits` by c, whose state is *st (e: its entry if
   it has lost records): c becomes the line's owner, its copy the only
   one. */
static unsigned store_line(cc_sys *sys, cc_state *st, cc_entry *e,
                           cc_core *c, uint64_t line, uint64_t bits)
{
   unsigned n = 0;
   uint32_t i;

   if (e)
      for (i = 0; i < e->n_lost; i++)
         e->lost[i].written |= bits;
   /* an owner's copy is the only one: no other core loaded it since */
   if (!c->code || (*st & CC_OWNER) != c->code)
      n = invalidate_others(sys, line, &e, c, bits);
   *st = (cc_state)(c->code | (e && e->n_lost ? CC_LOST : 0));
   return n;
}

/* A load by c: a modified copy elsewhere becomes shared (the owner's next
   store must look for the copies again). */
static void load_line(cc_state *st, const cc_core *c)
{
   if ((*st & CC_OWNER) != c->code)
      *st &= (cc_state)~CC_OWNER;
}

/* One line of an access: [first, last] are the bytes in it.  Returns the
   line's class in bits 0-1 and its invalidations above. */
static unsigned line_access(cc_sys *sys, cc_core *c, uint64_t line,
                            unsigned first, unsigned last, int is_write)
{
   cc_state *st = state_of(sys, line, is_write);
   cc_entry *e = 0;
   uint64_t bits = byte_bits(sys, first, last), written;
   unsigned cls = CC_NONE;

   if (!st)
      return CC_NONE;       /* a load of a line nobody wrote */
   if (*st & CC_LOST) {
      e = probe(sys, line);
      if (lost_take(sys, e, c->id, &written))
         cls = (written & bits) ? CC_TRUE : CC_FALSE;
      if (!e->n_lost)
         *st &= (cc_state)~CC_LOST;
   }
   if (!is_write) {
      load_line(st, c);
      return cls;
   }
   return cls | store_line(sys, st, e, c, line, bits) << 2;
}

static unsigned merge_class(unsigned a, unsigned b)
{
   if (a == CC_TRUE || b == CC_TRUE)
      return CC_TRUE;
   return a | b;
}

unsigned cc__data(cc_sys *sys, cc_core *c, uint64_t a, unsigned size,
                  unsigned r, int is_write)
{
   uint64_t end = a + size - 1;
   uint64_t line1 = a >> sys->hot.line_bits, line2 = end >> sys->hot.line_bits;
   unsigned mask = (1u << sys->hot.line_bits) - 1;
   unsigned r1, r2;

   /* c's late LL fills come before the invalidations' merges into LL, as
      they would without the late fill (cs_new_core) */
   cs_settle(c->sim);
   if (line1 == line2)
      r1 = line_access(sys, c, line1, (unsigned)a & mask, (unsigned)end & mask,
                       is_write);
   else {
      r1 = line_access(sys, c, line1, (unsigned)a & mask, mask, is_write);
      r2 = line_access(sys, c, line2, 0, (unsigned)end & mask, is_write);
      r1 = (CC_INV(r1) + CC_INV(r2)) << 2 | merge_class(CC_CLASS(r1),
                                                        CC_CLASS(r2));
   }
   /* only a miss can be a coherence miss (a lost line is never held) */
   if (!(r & CS_L1_MISS))
      r1 &= ~3u;
   return r1;
}

/* ------------------------------------------------------------------------
** The system
*/

#define FIRST_TABLE 4096
#define FIRST_CHUNKS 16

cc_sys *cc_new(cs_sim *first)
{
   cc_sys *sys = cs_alloc(sizeof(cc_sys));
   int bits = first->d1.line_bits;

   sys->hot.line_bits = bits;
   forget_cached_chunks(sys);
   sys->gran_shift = bits > 6 ? bits - 6 : 0;
   grow_cores(sys, 1);
   sys->cores[0] = core_new(first, 0);
   sys->n_cores = 1;
   sys->tab = table_new(FIRST_TABLE, sizeof(cc_entry));
   sys->tab_mask = FIRST_TABLE - 1;
   sys->chunks = table_new(FIRST_CHUNKS, sizeof(cc_chunk));
   sys->chunks_mask = FIRST_CHUNKS - 1;
   return sys;
}

static void forget_all(cc_sys *sys)
{
   uint64_t i, n = sys->tab_mask + 1;

   for (i = 0; i < n; i++)
      if (sys->tab[i].line != CC_NO_LINE)
         free_entry(&sys->tab[i]);
   sys->used = 0;
   for (i = 0; i <= sys->chunks_mask; i++)
      if (sys->chunks[i].key != CC_NO_LINE) {
         cs_free(sys->chunks[i].state);
         sys->chunks[i].key = CC_NO_LINE;
      }
   sys->n_chunks = 0;
   forget_cached_chunks(sys);
   sys->st.lost_now = 0;
}

void cc_delete(cc_sys *sys)
{
   unsigned k;

   if (!sys)
      return;
   forget_all(sys);
   cs_free(sys->tab);
   cs_free(sys->chunks);
   for (k = 0; k < sys->n_cores; k++) {
      if (!sys->cores[k])
         continue;
      if (k > 0)
         cs_delete_core(sys->cores[k]->sim);
      cs_free(sys->cores[k]);
   }
   cs_free(sys->cores);
   cs_free(sys);
}

void cc_set_collect(cc_sys *sys, int collecting)
{
   unsigned k;
   for (k = 0; k < sys->n_cores; k++)
      if (sys->cores[k])
         cs_set_collect(sys->cores[k]->sim, collecting);
}

/* Every core's late LL fills made (only the core that ran last can have
   any: cs_new_core). */
static void settle_cores(cc_sys *sys)
{
   unsigned k;
   for (k = 0; k < sys->n_cores; k++)
      if (sys->cores[k])
         cs_settle(sys->cores[k]->sim);
}

void cc_flush(cc_sys *sys)
{
   unsigned k;

   settle_cores(sys);
   for (k = 1; k < sys->n_cores; k++)
      if (sys->cores[k])
         cs_flush_l1(sys->cores[k]->sim);
   cs_flush(sys->cores[0]->sim);
   forget_all(sys);
}

void cc_clear(cc_sys *sys)
{
   unsigned k;

   settle_cores(sys);
   for (k = 0; k < sys->n_cores; k++)
      if (sys->cores[k])
         cs_clear(sys->cores[k]->sim);
   forget_all(sys);
}

void cc_get_stats(const cc_sys *sys, cc_stats *st)
{
   *st = sys->st;
   st->entries = sys->used;
   st->state_bytes = sys->n_chunks * CC_CHUNK_LINES * sizeof(cc_state);
}
