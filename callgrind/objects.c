/* callgrind-bd: data objects (--objects=yes) -- which object every data
 * access touches, and the costs per object, accessing instruction and
 * call chain.  The model is described at the top of objects.h; this file
 * holds the object table, the address lookup, call chains and cells.
 * Allocation observation is in objects_alloc.c, the output and the exit
 * report in objects_dump.c.
 *
 * Address lookup: a direct-mapped cache of blocks (by 64-byte granule); a
 * miss looks at the current thread's stack, then the live heap blocks (an
 * ordered set), then the static variables of the symbol table, and
 * otherwise answers [unknown] with a negative entry (see unknown_extent
 * and unnamed_elf_data for how far one reaches and how long it lives).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "objects_int.h"
#include "coherence.h"
#include "pub_tool_oset.h"
#include "pub_tool_aspacemgr.h"

cb_block *cb_obj_cache[1 << CB_OBJ_CACHE_BITS];
UWord cb_obj_gen = 1;
cb_chain *cb_obj_root_chain;
cb_chain **cb_obj_thread_roots;
cb_chain *cb_obj_chain_now;
static cb_obj *bucket_code;
cb_obj *cb_obj_allocator;
Bool cb_obj_hist;

cb_obj *cb_obj_list, **cb_obj_list_tail = &cb_obj_list;
UInt cb_obj_count_objs;
static cb_obj *bucket_unknown;
static cb_obj **bucket_stack;     /* by thread id */
static cb_block **stack_block;    /* by thread id */
/* Negative entries ([unknown]); a slot's entry may be reused for another
 * slot, which then misses (its range no longer fits). */
#define NEG_BITS 16
static cb_block neg_block[1 << NEG_BITS];
static OSet *heap_blocks;     /* live heap blocks by start */
static OSet *static_blocks;   /* static variables seen so far, by start */
static OSet *unnamed_blocks;  /* ELF granules without any symbol, by start */


/*------------------------------------------------------------*/
/*--- Objects                                              ---*/
/*------------------------------------------------------------*/

cb_obj *cb_obj_new(obj_kind kind, const HChar *name)
{
   cb_obj *o = cb_mem_alloc(CB_MEM_OBJECTS, "cb.obj", sizeof *o);
   VG_(memset)(o, 0, sizeof *o);
   o->kind = kind;
   o->name = VG_(strdup)("cb.obj.name", name);
   o->number = ++cb_obj_count_objs;
   o->gran_bytes = cb_clo.object_granularity;
   *cb_obj_list_tail = o;
   cb_obj_list_tail = &o->next_all;
   return o;
}

/* Histogram granule of an offset; the granularity of an object doubles
 * whenever it would need more than MAX_GRANULES granules. */
#define MAX_GRANULES 65536
static void coarsen(cb_obj *o)
{
   UInt i, e;
   for (i = 0; i < o->hist_n / 2 + (o->hist_n & 1); i++)
      for (e = 0; e < OE_COUNT; e++) {
         ULong v = o->hist[2 * i * OE_COUNT + e];
         if (2 * i + 1 < o->hist_n) v += o->hist[(2 * i + 1) * OE_COUNT + e];
         o->hist[i * OE_COUNT + e] = v;
      }
   for (; i < o->hist_n; i++)
      VG_(memset)(&o->hist[i * OE_COUNT], 0, OE_COUNT * sizeof(ULong));
   o->gran_bytes *= 2;
}

static void grow_hist(cb_obj *o, UInt needed)
{
   UInt n = o->hist_n ? o->hist_n : 16;
   while (n < needed) n *= 2;
   if (n > MAX_GRANULES) n = MAX_GRANULES;
   o->hist = VG_(realloc)("cb.obj.hist", o->hist, (SizeT)n * OE_COUNT * sizeof(ULong));
   VG_(memset)(o->hist + (SizeT)o->hist_n * OE_COUNT, 0,
               (SizeT)(n - o->hist_n) * OE_COUNT * sizeof(ULong));
   o->hist_n = n;
}

UInt cb_obj_granule(cb_obj *o, Addr offset)
{
   Addr g = offset / o->gran_bytes;
   while (g >= MAX_GRANULES) {
      if (o->hist_n == 0) grow_hist(o, 1);
      coarsen(o);
      g = offset / o->gran_bytes;
   }
   if (g >= o->hist_n) grow_hist(o, (UInt)g + 1);
   return (UInt)g;
}

/*------------------------------------------------------------*/
/*--- Blocks and the address lookup                        ---*/
/*------------------------------------------------------------*/

static Word cmp_block_range(const void *key, const void *elem)
{
   Addr a = *(const Addr *)key;
   const cb_block *b = elem;
   if (a < b->start) return -1;
   if (a - b->start >= b->len && !(b->len == 0 && a == b->start)) return 1;
   return 0;
}

/* The cache slots a block may occupy. */
static void forget_cached(const cb_block *b)
{
   Addr g, first = b->start >> CB_OBJ_CACHE_SHIFT;
   Addr last = (b->start + (b->len ? b->len - 1 : 0)) >> CB_OBJ_CACHE_SHIFT;
   for (g = first; g <= last && g - first < (1 << CB_OBJ_CACHE_BITS); g++)
      if (cb_obj_cache[g & ((1 << CB_OBJ_CACHE_BITS) - 1)] == b)
         cb_obj_cache[g & ((1 << CB_OBJ_CACHE_BITS) - 1)] = NULL;
}

/* A found block takes the slot of a's granule, and those of up to
 * FILL_AHEAD following granules that lie wholly inside it: a walk through
 * a large block misses once per FILL_AHEAD granules, and a small block
 * never takes the slot of a granule it shares with a neighbour that was
 * not accessed there. */
#define FILL_AHEAD 64
static void remember(cb_block *b, Addr a)
{
   Addr g = a >> CB_OBJ_CACHE_SHIFT;
   Addr end_whole = (b->start + b->len) >> CB_OBJ_CACHE_SHIFT;  /* granules below are whole */
   Addr last = g + FILL_AHEAD;
   cb_obj_cache[g & ((1 << CB_OBJ_CACHE_BITS) - 1)] = b;
   if (b->gen != 0) return;
   if (end_whole < last) last = end_whole;
   for (g++; g < last; g++)
      cb_obj_cache[g & ((1 << CB_OBJ_CACHE_BITS) - 1)] = b;
}

void cb_obj_heap_add(Addr start, SizeT len, cb_obj *o)
{
   cb_block *b = VG_(OSetGen_Lookup)(heap_blocks, &start);
   if (b) cb_obj_heap_remove(start);      /* a release we did not see */
   b = VG_(OSetGen_AllocNode)(heap_blocks, sizeof *b);
   b->start = start;
   b->len = len;
   b->gen = 0;
   b->obj = o;
   VG_(OSetGen_Insert)(heap_blocks, b);
   cb_obj_gen++;                          /* negative entries may be stale */
   o->blocks++;
   o->bytes += len;
   if (len > o->max_block) o->max_block = len;
}

/* The object of the heap block starting at start, or NULL. */
cb_obj *cb_obj_heap_owner(Addr start)
{
   cb_block *b = VG_(OSetGen_Lookup)(heap_blocks, &start);
   return b ? b->obj : NULL;
}

void cb_obj_heap_remove(Addr start)
{
   cb_block *b = VG_(OSetGen_Remove)(heap_blocks, &start);
   if (!b) return;
   forget_cached(b);
   VG_(OSetGen_FreeNode)(heap_blocks, b);
}

/* munmap: every block starting inside the range. */
void cb_obj_heap_remove_range(Addr start, SizeT len)
{
   Addr starts[64];
   Int n, i;
   do {
      cb_block *b;
      n = 0;
      VG_(OSetGen_ResetIterAt)(heap_blocks, &start);
      while (n < 64 && (b = VG_(OSetGen_Next)(heap_blocks)) && b->start - start < len)
         starts[n++] = b->start;
      for (i = 0; i < n; i++) cb_obj_heap_remove(starts[i]);
   } while (n == 64);
}

static cb_block *thread_stack(Addr a)
{
   ThreadId tid = cb_cur.tid;
   cb_block *b;
   if (tid == VG_INVALID_THREADID || tid >= VG_N_THREADS) return NULL;
   b = stack_block[tid];
   if (!b || a - b->start >= b->len) {
      /* first sight, or the thread id was reused for a new stack */
      Addr max = VG_(thread_get_stack_max)(tid);
      SizeT size = VG_(thread_get_stack_size)(tid);
      HChar name[40];
      if (max == 0 || size == 0) return NULL;
      if (!bucket_stack[tid]) {
         VG_(sprintf)(name, "[stack of thread %u]", tid);
         bucket_stack[tid] = cb_obj_new(OK_BUCKET, name);
      }
      if (!b) {
         b = CB_MALLOC("cb.obj.stack", sizeof *b);
         stack_block[tid] = b;
      } else if (b->start != max + 1 - size || b->len != size) {
         forget_cached(b);
      }
      b->start = max + 1 - size;
      b->len = size;
      b->gen = 0;
      b->obj = bucket_stack[tid];
   }
   return a - b->start < b->len ? b : NULL;
}

/* The extent of the data symbol holding a: probe the symbol table for
 * the last offset that still belongs to the same symbol. */
static SizeT symbol_extent(DiEpoch ep, Addr start, const HChar *name, PtrdiffT known)
{
   SizeT lo = (SizeT)known, hi = lo + 1;    /* lo inside, hi unknown */
   const HChar *n2;
   PtrdiffT off;
   HChar *copy = VG_(strdup)("cb.obj.sym", name);
   while (VG_(get_datasym_and_offset)(ep, start + hi, &n2, &off)
          && off == (PtrdiffT)hi && VG_(strcmp)(n2, copy) == 0) {
      lo = hi;
      hi *= 2;
   }
   while (hi - lo > 1) {                     /* lo inside, hi outside */
      SizeT mid = lo + (hi - lo) / 2;
      if (VG_(get_datasym_and_offset)(ep, start + mid, &n2, &off)
          && off == (PtrdiffT)mid && VG_(strcmp)(n2, copy) == 0)
         lo = mid;
      else
         hi = mid;
   }
   VG_(free)(copy);
   return lo + 1;
}

/* Names of the static objects, hashed: a program with thousands of
 * statics (an interpreter) would otherwise compare each new name with
 * all the others. */
#define STATIC_NAME_BUCKETS 4096
typedef struct static_name { const HChar *name; struct static_name *next; } static_name;
static static_name *static_names[STATIC_NAME_BUCKETS];

static UInt static_name_hash(const HChar *s)
{
   UInt h = 5381;
   for (; *s; s++) h = h * 33 + (UChar)*s;
   return h % STATIC_NAME_BUCKETS;
}

static Bool static_name_taken(const HChar *name)
{
   const static_name *n;
   for (n = static_names[static_name_hash(name)]; n; n = n->next)
      if (VG_(strcmp)(n->name, name) == 0) return True;
   return False;
}

static void static_name_add(const HChar *name)
{
   static_name *n = CB_MALLOC("cb.obj.sname", sizeof *n);
   UInt h = static_name_hash(name);
   n->name = name;
   n->next = static_names[h];
   static_names[h] = n;
}

/* The load bias of the ELF file mapped from path (0 if unknown). */
static PtrdiffT bias_of(const HChar *path)
{
   const DebugInfo *di;
   for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di))
      if (VG_(strcmp)(VG_(DebugInfo_get_filename)(di), path) == 0)
         return VG_(DebugInfo_get_text_bias)(di);
   return 0;
}

/* "symbol (ELF file)"; a file-local symbol whose name is already taken in
 * that file (libc has several static `buffer`s) also gets its address in
 * the file: "buffer (libc.so.6+0x1d7a40)". */
static cb_obj *static_object(Addr a, const HChar *symbol)
{
   const HChar *file = NULL, *slash;
   HChar *name;
   cb_obj *o;
   VG_(DebugInfo_sect_kind)(&file, a);
   if (!file || !*file || VG_(strcmp)(file, "???") == 0) {
      /* not in a section Valgrind classifies (e.g. .rodata): the file
       * mapped there */
      const NSegment *seg = VG_(am_find_nsegment)(a);
      file = seg ? VG_(am_get_filename)(seg) : NULL;
   }
   if (!file || !*file) file = "???";
   slash = VG_(strrchr)(file, '/');
   name = CB_MALLOC("cb.obj.sname", VG_(strlen)(symbol) + VG_(strlen)(file) + 32);
   VG_(sprintf)(name, "%s (%s)", symbol, slash ? slash + 1 : file);
   if (static_name_taken(name))
      VG_(sprintf)(name, "%s (%s+%#lx)", symbol, slash ? slash + 1 : file,
                   (UWord)(a - bias_of(file)));
   o = cb_obj_new(OK_STATIC, name);
   CB_FREE(name);
   static_name_add(o->name);
   o->file = VG_(strdup)("cb.obj.file", file);
   return o;
}

static cb_block *static_variable(Addr a)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *name;
   PtrdiffT off;
   Addr start;
   cb_block *b;
   HChar *copy;

   if (!VG_(get_datasym_and_offset)(ep, a, &name, &off) || off < 0) return NULL;
   start = a - off;
   b = VG_(OSetGen_Lookup)(static_blocks, &start);
   if (b) return a - b->start < b->len ? b : NULL;
   copy = VG_(strdup)("cb.obj.sym", name);
   b = VG_(OSetGen_AllocNode)(static_blocks, sizeof *b);
   b->start = start;
   b->len = symbol_extent(ep, start, copy, off);
   b->gen = 0;
   b->obj = static_object(start, copy);
   b->obj->blocks = 1;
   b->obj->bytes = b->obj->max_block = b->len;
   VG_(free)(copy);
   VG_(OSetGen_Insert)(static_blocks, b);
   return b;
}

ULong cb_obj_slow_lookups;

/* How far [unknown] extends from a (outside ELF files), as far as a
 * negative entry may say: to the end of a's granule or the next heap
 * block. Such entries die with any new heap block and any thread switch
 * (the stack a thread did not recognise may be the next thread's). */
static SizeT unknown_extent(Addr a)
{
   Addr end = ((a >> CB_OBJ_CACHE_SHIFT) + 1) << CB_OBJ_CACHE_SHIFT;
   cb_block *next;
   /* the granule's end inside an ELF file's section: statics may be there */
   if (VG_(DebugInfo_sect_kind)(NULL, end - 1) != Vg_SectUnknown) return 1;
   VG_(OSetGen_ResetIterAt)(heap_blocks, &a);
   next = VG_(OSetGen_Next)(heap_blocks);
   if (next && next->start < end) end = next->start;
   return end - a;
}

/* An address of an ELF file that no symbol covers (a stripped file's
 * data, padding): the granule around it is probed byte by byte once; a
 * granule no symbol touches becomes a permanent [unknown] block, so
 * programs whose data has no symbols do not look every byte up again. */
static cb_block *unnamed_elf_data(Addr a)
{
   Addr g = a & ~(Addr)((1 << CB_OBJ_CACHE_SHIFT) - 1), p;
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *name;
   PtrdiffT off;
   cb_block *b = VG_(OSetGen_Lookup)(unnamed_blocks, &g);
   if (b) return b;
   for (p = g; p < g + (1 << CB_OBJ_CACHE_SHIFT); p++)
      if (VG_(get_datasym_and_offset)(ep, p, &name, &off)) return NULL;
   b = VG_(OSetGen_AllocNode)(unnamed_blocks, sizeof *b);
   b->start = g;
   b->len = 1 << CB_OBJ_CACHE_SHIFT;
   b->gen = 0;
   b->obj = bucket_unknown;
   VG_(OSetGen_Insert)(unnamed_blocks, b);
   return b;
}

ULong cb_obj_slow_found[4];   /* stack, heap, static, unknown */

cb_block *cb_obj_lookup_slow(Addr a)
{
   UWord slot = CB_OBJ_SLOT(a);
   cb_block *b = thread_stack(a);
   cb_obj_slow_lookups++;
   if (b) cb_obj_slow_found[0]++;
   if (!b) {
      b = VG_(OSetGen_LookupWithCmp)(heap_blocks, &a, cmp_block_range);
      if (b && b->len == 0) b = NULL;
      if (b) cb_obj_slow_found[1]++;
   }
   if (!b && (b = static_variable(a))) cb_obj_slow_found[2]++;
   if (!b) {
      cb_obj_slow_found[3]++;
      if (VG_(DebugInfo_sect_kind)(NULL, a) != Vg_SectUnknown) {
         b = unnamed_elf_data(a);
         if (!b) {
            /* a symbol shares the granule: just this byte, for good (no
             * heap block or stack appears inside an ELF file) */
            b = &neg_block[slot & ((1 << NEG_BITS) - 1)];
            b->start = a;
            b->len = 1;
            b->gen = 0;
            b->obj = bucket_unknown;
         }
      } else {
         b = &neg_block[slot & ((1 << NEG_BITS) - 1)];
         b->start = a;
         b->len = unknown_extent(a);
         b->gen = cb_obj_gen;
         b->obj = bucket_unknown;
      }
   }
   remember(b, a);
   return b;
}

/*------------------------------------------------------------*/
/*--- Call chains                                          ---*/
/*------------------------------------------------------------*/

/* (parent, arc) -> chain.  A recursive call (the callee already runs in
 * the chain) maps back to the chain of that earlier activation, so the
 * number of chains stays bounded by the acyclic call paths. */
typedef struct chain_link {
   cb_chain *parent;
   JCC *jcc;
   cb_chain *to;
   struct chain_link *next;
} chain_link;

static chain_link **chain_links;
static UWord chain_links_size, chain_links_used;
ULong cb_obj_n_chains;
cb_chain *cb_obj_chains;   /* newest first: children before parents */

static fn_node *callee_fn(const JCC *j) { return cb_obj_fn_of(j->to); }

static cb_chain *active_ancestor(cb_chain *c, fn_node *fn)
{
   for (; c && c->jcc; c = c->parent)
      if (callee_fn(c->jcc) == fn) return c;
   return NULL;
}

static UWord link_hash(const cb_chain *parent, const JCC *jcc)
{
   return ((UWord)parent >> 4) * 0x9E3779B1UL ^ ((UWord)jcc >> 3);
}

/* Tables grow when they hold twice as many entries as buckets. */
static void grow_links(void)
{
   UWord n = chain_links_size * 4, i;
   chain_link **t = CB_MALLOC("cb.obj.links", n * sizeof *t);
   VG_(memset)(t, 0, n * sizeof *t);
   for (i = 0; i < chain_links_size; i++) {
      chain_link *l = chain_links[i], *next;
      for (; l; l = next) {
         UWord h = link_hash(l->parent, l->jcc) % n;
         next = l->next;
         l->next = t[h];
         t[h] = l;
      }
   }
   CB_FREE(chain_links);
   chain_links = t;
   chain_links_size = n;
}

/* Chains by number, for line owners. */
static cb_chain **chain_by_id;
static UInt chain_ids, chain_ids_size;

static void number_chain(cb_chain *c)
{
   if (chain_ids == chain_ids_size) {
      chain_ids_size = chain_ids_size ? 2 * chain_ids_size : 4096;
      chain_by_id = VG_(realloc)("cb.obj.chainids", chain_by_id,
                                 chain_ids_size * sizeof *chain_by_id);
   }
   c->id = chain_ids;
   chain_by_id[chain_ids++] = c;
}

cb_chain *cb_obj_chain(cb_chain *parent, JCC *jcc, Bool alloc_call)
{
   UWord h = link_hash(parent, jcc) % chain_links_size;
   chain_link *l;
   cb_chain *c;
   for (l = chain_links[h]; l; l = l->next)
      if (l->parent == parent && l->jcc == jcc) return l->to;
   c = active_ancestor(parent, callee_fn(jcc));
   if (!c) {
      c = CB_MALLOC("cb.obj.chain", sizeof *c);
      c->parent = parent;
      c->jcc = jcc;
      c->in_alloc = parent->in_alloc || alloc_call;
      c->tid = parent->tid;
      c->code_owner = NULL;
      number_chain(c);
      VG_(memset)(c->incl, 0, sizeof c->incl);
      c->next_all = cb_obj_chains;
      cb_obj_chains = c;
      cb_obj_n_chains++;
   }
   l = CB_MALLOC("cb.obj.link", sizeof *l);
   l->parent = parent;
   l->jcc = jcc;
   l->to = c;
   l->next = chain_links[h];
   chain_links[h] = l;
   if (++chain_links_used > 2 * chain_links_size) grow_links();
   return c;
}

/* With --separate-threads=yes each thread's chains grow from a root of
 * its own, so that a thread's dump finds its cells by their chain (a
 * thread's arcs are its own too: its cost centres are). */
static cb_chain *new_root(ThreadId tid)
{
   cb_chain *r = CB_MALLOC("cb.obj.chain", sizeof *r);
   VG_(memset)(r, 0, sizeof *r);
   r->tid = tid;
   number_chain(r);
   return r;
}

void cb_obj_use_thread_root(void)
{
   ThreadId tid = cb_cur.tid;
   if (tid == VG_INVALID_THREADID || tid >= VG_N_THREADS) return;
   if (!cb_obj_thread_roots[tid]) cb_obj_thread_roots[tid] = new_root(tid);
   cb_obj_root_chain = cb_obj_thread_roots[tid];
}

/*------------------------------------------------------------*/
/*--- Cells                                                ---*/
/*------------------------------------------------------------*/

/* The cell table: open addressing with linear probing; an entry holds a
 * 32-bit tag of the key's hash next to the cell, so that a probe reads
 * the cell only when the tag matches. Power-of-two size, at most 3/4
 * full. Key: object, instruction, cost centre (and chain for [code]). */
typedef struct { UInt tag; cb_cell *cell; } cell_entry;
static cell_entry *cells;
static UInt cells_bits;
ULong cb_obj_n_cells, cb_obj_n_pairs;

static ULong mix4(UWord a, UWord b, UWord c, UWord d)
{
   ULong h = (a >> 4) * 0x9E3779B97F4A7C15ULL ^ (b >> 4) * 0xC2B2AE3D27D4EB4FULL
             ^ (c >> 3) * 0x165667B19E3779F9ULL ^ (d >> 4);
   h ^= h >> 31;
   return h * 0xBF58476D1CE4E5B9ULL;
}

static ULong cell_mix(const cb_obj *obj, const cb_chain *chain, const sim_instr_info *ii, const BBCC *bbcc)
{
   return mix4((UWord)obj, (UWord)chain, (UWord)ii, (UWord)bbcc);
}

static UInt cell_tag(ULong mix) { return (UInt)(mix >> 8) | 1; }

static void table_insert(cell_entry *t, UInt bits, ULong mix, cb_cell *c)
{
   UWord mask = ((UWord)1 << bits) - 1, i = (UWord)(mix >> (64 - bits));
   while (t[i].tag) i = (i + 1) & mask;
   t[i].tag = cell_tag(mix);
   t[i].cell = c;
}

static void grow_cells(void)
{
   UInt bits = cells_bits + 1;
   UWord i, old = (UWord)1 << cells_bits;
   cell_entry *t = CB_MALLOC("cb.obj.cells", ((UWord)1 << bits) * sizeof *t);
   VG_(memset)(t, 0, ((UWord)1 << bits) * sizeof *t);
   for (i = 0; i < old; i++) {
      cb_cell *c = cells[i].cell;
      if (cells[i].tag)
         table_insert(t, bits, cell_mix(c->obj, c->ii ? NULL : c->chain, c->ii, c->bbcc), c);
   }
   CB_FREE(cells);
   cells = t;
   cells_bits = bits;
}

/* Cells and pairs are never freed: they come from large chunks (no
 * allocator header each, no allocator call). */
#define CHUNK (1 << 20)
static UChar *chunk_next;
static SizeT chunk_left;

static void *alloc_small(SizeT n)
{
   void *p;
   if (chunk_left < n) {
      chunk_next = CB_MALLOC("cb.obj.cells", CHUNK);
      chunk_left = CHUNK;
   }
   p = chunk_next;
   chunk_next += n;
   chunk_left -= n;
   VG_(memset)(p, 0, n);
   return p;
}

static cb_cell *new_cell(const sim_instr_info *ii, cb_obj *obj, cb_chain *chain)
{
   cb_cell *c = alloc_small(sizeof *c);
   c->obj = obj;
   c->ii = ii;
   c->chain = ii ? NULL : chain;
   c->bbcc = ii ? cb_cur.bbcc : NULL;
   c->tid = chain->tid;
   c->skipped = cb_cur.nonskipped != NULL;
   c->next_of_obj = obj->cells;
   obj->cells = c;
   return c;
}

/* The cell of an access by ii to obj in the running cost centre. */
static cb_cell *cell_of(const sim_instr_info *ii, cb_obj *obj, cb_chain *chain)
{
   const BBCC *bbcc = ii ? cb_cur.bbcc : NULL;
   const cb_chain *key = ii ? NULL : chain;
   ULong mix = cell_mix(obj, key, ii, bbcc);
   UInt tag = cell_tag(mix);
   UWord mask = ((UWord)1 << cells_bits) - 1, i = (UWord)(mix >> (64 - cells_bits));
   cb_cell *c;
   for (; cells[i].tag; i = (i + 1) & mask) {
      c = cells[i].cell;
      if (cells[i].tag == tag && c->ii == ii && c->obj == obj && c->bbcc == bbcc
          && c->chain == key)
         return c;
   }
   c = new_cell(ii, obj, chain);
   cells[i].tag = tag;
   cells[i].cell = c;
   if (++cb_obj_n_cells > (((UWord)3 << cells_bits) >> 2)) grow_cells();
   return c;
}

/* The pair table: chained, power-of-two buckets, at most one pair per
 * bucket on average; in front of it a small direct-mapped cache of the
 * pairs found last (an interpreter's instructions alternate between a few
 * objects and chains). */
static cb_pair **pairs;
static UInt pairs_bits;
#define RECENT_BITS 12
static cb_pair *recent[1 << RECENT_BITS];

static ULong pair_mix(const sim_instr_info *ii, const cb_obj *obj, const cb_chain *chain, const BBCC *bbcc)
{
   return mix4((UWord)obj, (UWord)chain, (UWord)ii, (UWord)bbcc);
}

static Bool pair_is(const cb_pair *p, const sim_instr_info *ii, const cb_obj *obj,
                    const cb_chain *chain, const BBCC *bbcc)
{
   return p->chain == chain && p->cell->ii == ii && p->cell->obj == obj && p->cell->bbcc == bbcc;
}

static void grow_pairs(void)
{
   UInt bits = pairs_bits + 1;
   UWord i, old = (UWord)1 << pairs_bits;
   cb_pair **t = CB_MALLOC("cb.obj.pairs", ((UWord)1 << bits) * sizeof *t);
   VG_(memset)(t, 0, ((UWord)1 << bits) * sizeof *t);
   for (i = 0; i < old; i++) {
      cb_pair *p = pairs[i], *next;
      for (; p; p = next) {
         UWord h = (UWord)(pair_mix(p->cell->ii, p->cell->obj, p->chain, p->cell->bbcc)
                           >> (64 - bits));
         next = p->next_hash;
         p->next_hash = t[h];
         t[h] = p;
      }
   }
   CB_FREE(pairs);
   pairs = t;
   pairs_bits = bits;
}

static cb_pair *pair_of(const sim_instr_info *ii, cb_obj *obj, cb_chain *chain)
{
   const BBCC *bbcc = ii ? cb_cur.bbcc : NULL;
   ULong mix = pair_mix(ii, obj, chain, bbcc);
   UWord h = (UWord)(mix >> (64 - pairs_bits));
   cb_pair **r = &recent[(mix >> 20) & ((1 << RECENT_BITS) - 1)];
   cb_pair *p = *r;
   if (p && pair_is(p, ii, obj, chain, bbcc)) return p;
   for (p = pairs[h]; p; p = p->next_hash)
      if (pair_is(p, ii, obj, chain, bbcc)) { *r = p; return p; }
   p = alloc_small(sizeof *p);
   p->cell = cell_of(ii, obj, chain);
   p->chain = chain;
   p->next_hash = pairs[h];
   pairs[h] = p;
   *r = p;
   if (++cb_obj_n_pairs > ((UWord)1 << pairs_bits)) grow_pairs();
   return p;
}

/* Without a histogram: the fast path's slow side. A small direct-mapped
 * cache of the cells found last goes first. */
#define RECENT_CELLS_BITS 12
static cb_cell *recent_cells[1 << RECENT_CELLS_BITS];

cb_cell *cb_obj_cell_slow(const sim_instr_info *ii, cb_obj *obj, cb_chain *chain)
{
   ULong mix = cell_mix(obj, NULL, ii, cb_cur.bbcc);
   cb_cell **r = &recent_cells[(mix >> 20) & ((1 << RECENT_CELLS_BITS) - 1)];
   cb_cell *c = *r;
   if (c && c->ii == ii && c->obj == obj && c->bbcc == cb_cur.bbcc) return c;
   c = cell_of(ii, obj, chain);
   *r = c;
   return c;
}

/* With a histogram. */
cb_obj_ref cb_obj_before_hist(sim_instr_info *ii, Addr a, cs_owner *o, cb_chain *chain)
{
   cb_obj_ref r;
   cb_block *b = chain->in_alloc ? NULL : cb_obj_lookup(a);
   cb_obj *obj = b ? b->obj : cb_obj_allocator;
   cb_pair *p = (cb_pair *)ii->obj_cell;
   if (!p || p->chain != chain || p->cell->obj != obj || p->cell->bbcc != cb_cur.bbcc) {
      p = pair_of(ii, obj, chain);
      ii->obj_cell = p;
   }
   r.cell = p->cell;
   r.gran = 0;
   if (b) {
      r.gran = cb_obj_granule(obj, a - b->start);
      p->cell->last_off = (UInt)((a - b->start) >> CB_OBJ_OFF_SHIFT);
   }
   if (o) {
      o->obj = p;
      /* the offset, not the granule: the object's granularity may be
       * coarser by the time the line leaves */
      o->obj_off = b ? (UInt)((a - b->start) >> CB_OBJ_OFF_SHIFT) : 0;
   }
   return r;
}

void *cb_obj_code_owner_of(cb_chain *chain)
{
   chain->code_owner = cb_obj_hist ? (void *)pair_of(NULL, bucket_code, chain)
                                   : (void *)cell_of(NULL, bucket_code, chain);
   return chain->code_owner;
}

/*------------------------------------------------------------*/
/*--- Blocks that never completed                          ---*/
/*------------------------------------------------------------*/

/* The arcs-only twin of a cell: it is listed with the object's cells
 * (so its costs reach the arcs) and left out of self costs. */
static cb_cell *twin_of(cb_cell *c)
{
   cb_cell *t;
   if (c->arcs_only) return c;
   if (c->twin) return c->twin;
   t = alloc_small(sizeof *t);
   *t = *c;
   VG_(memset)(t->cost, 0, sizeof t->cost);
   t->arcs_only = True;
   t->carried = t->held = False;
   t->twin = NULL;
   t->next_of_obj = c->obj->cells;
   c->obj->cells = t;
   c->twin = t;
   return t;
}

#define MAX_DROPPED 64
static struct { const ULong *first; SizeT n; } dropped[MAX_DROPPED];
static Int n_dropped;

static Bool is_dropped(const cs_owner *o)
{
   const ULong *slot = (const ULong *)((UWord)o->slot & ~(UWord)1);
   Int i;
   for (i = 0; i < n_dropped; i++)
      if (slot >= dropped[i].first && slot < dropped[i].first + dropped[i].n) return True;
   return False;
}

/* Its immediate costs so far move to the twins (the cells of its
 * instructions under the running chain received nothing else: the block
 * ran once there, apart from costs carried over from the part before,
 * which stay self costs); lines it loaded go to the twins when they
 * leave. */
void cb_obj_block_dropped(const BB *bb, const ULong *old_cost, SizeT n)
{
   const BBCC *bbcc = cb_cur.bbcc;
   const sim_instr_info *first = bb->sim_instr;
   cb_obj *o;
   Int e;
   if (n_dropped < MAX_DROPPED) {
      dropped[n_dropped].first = old_cost;
      dropped[n_dropped].n = n;
      n_dropped++;
   }
   if (!first || !bbcc || bbcc->bb != bb) return;
   for (o = cb_obj_list; o; o = o->next_all) {
      cb_cell *c;
      for (c = o->cells; c; c = c->next_of_obj) {
         if (c->bbcc != bbcc || !c->ii || c->ii < first || c->ii >= first + bb->instr_count)
            continue;
         for (e = 0; e < OE_COUNT; e++) {
            ULong keep = cb_obj_carried_cost(c, e);
            twin_of(c)->cost[e] += c->cost[e] - keep;
            c->cost[e] = keep;
         }
      }
   }
}

/*------------------------------------------------------------*/
/*--- Events                                               ---*/
/*------------------------------------------------------------*/

static inline void hist_add(cb_obj *o, UInt gran, Int ev, ULong n)
{
   if (gran < o->hist_n) o->hist[(SizeT)gran * OE_COUNT + ev] += n;
}

/* An event to a cell and, at the same moment, to the chain it ran under. */
static inline void add(cb_cell *c, cb_chain *chain, UInt gran, Int ev, ULong n)
{
   c->cost[ev] += n;
   chain->incl[ev] += n;
   if (cb_obj_hist && c->obj->hist && !c->arcs_only) hist_add(c->obj, gran, ev, n);
}

void cb_obj_count_coherence(cb_obj_ref r, unsigned cc)
{
   cb_cell *c = r.cell;
   cb_chain *chain = cb_obj_chain_now;
   if (CC_CLASS(cc)) add(c, chain, r.gran, CC_CLASS(cc) == CC_TRUE ? OE_D1Ts : OE_D1Fs, 1);
   if (CC_INV(cc)) add(c, chain, r.gran, OE_Inv, CC_INV(cc));
}

void cb_obj_count_hist(cb_obj_ref r, unsigned res, Bool is_write)
{
   cb_cell *c = r.cell;
   cb_chain *chain = cb_obj_chain_now;
   add(c, chain, r.gran, is_write ? OE_Dw : OE_Dr, 1);
   if (!(res & CS_L1_MISS)) return;
   add(c, chain, r.gran, is_write ? OE_D1mw : OE_D1mr, 1);
   if (res & CS_L2_MISS) add(c, chain, r.gran, is_write ? OE_D2mw : OE_D2mr, 1);
   if (!(res & CS_LL_MISS)) return;
   add(c, chain, r.gran, is_write ? OE_DLmw : OE_DLmr, 1);
   if (res & CS_LL_DIRTY_MISS) add(c, chain, r.gran, is_write ? OE_DLdmw : OE_DLdmr, 1);
}

const HChar *cb_obj_kind_name(const cb_obj *o)
{
   return o->kind == OK_HEAP ? "[heap]" : o->kind == OK_STATIC ? "[static]" : "[other]";
}

/* Here, not in objects_dump.c: paths.c calls it, and the writer's file
 * reaches the call tracking and with it paths.c. */
void cb_obj_write_frame(cb_outfile *f, const HChar *prefix, const cb_obj *o)
{
   cb_out_str(f, prefix);
   cb_out_str(f, cb_obj_kind_name(o));
   cb_out_str(f, o->kind == OK_HEAP ? "\tobject allocated at " : "\t");
   cb_out_str(f, o->name);
   cb_out_str(f, "\n");
}

struct cb_obj *cb_obj_of_owner(const cs_owner *o)
{
   if (!o->obj) return NULL;
   return (cb_obj_hist ? ((const cb_pair *)o->obj)->cell : (const cb_cell *)o->obj)->obj;
}

void cb_obj_evict(const cs_owner *o, int level, UInt accost, UInt sploss)
{
   cb_cell *c;
   cb_chain *chain;
   UInt gran = 0;
   if (!o->obj || (accost == 0 && sploss == 0)) return;
   if (cb_obj_hist) {
      const cb_pair *p = o->obj;
      c = p->cell;
      chain = p->chain;
   } else {
      c = o->obj;
      chain = chain_by_id[o->obj_off];
   }
   if (UNLIKELY(n_dropped > 0) && is_dropped(o)) c = twin_of(c);
   if (cb_obj_hist && c->obj->hist)
      gran = cb_obj_granule(c->obj, (Addr)o->obj_off << CB_OBJ_OFF_SHIFT);
   add(c, chain, gran, level == 1 ? OE_AcCost1 : level == CS_LEVEL_L2 ? OE_AcCostL2 : OE_AcCost2,
       accost);
   add(c, chain, gran, level == 1 ? OE_SpLoss1 : level == CS_LEVEL_L2 ? OE_SpLossL2 : OE_SpLoss2,
       sploss);
}

/*------------------------------------------------------------*/
/*--- Start                                                ---*/
/*------------------------------------------------------------*/

void cb_obj_post_clo_init(void)
{
   if (!cb_clo.objects) return;
   if (cb_clo.object_granularity > 0 && cb_clo.object_granularity < cb_geometry_max_line_size()) {
      VG_(fmsg)("callgrind-bd: --object-granularity=%d is below the cache line size (%d)\n",
                cb_clo.object_granularity, cb_geometry_max_line_size());
      VG_(exit)(1);
   }
   if (cb_clo.object_granularity > 0 && cb_clo.separate_threads) {
      /* the histogram is kept per object, not per thread */
      VG_(fmsg)("callgrind-bd: --object-granularity cannot be combined with --separate-threads=yes\n");
      VG_(exit)(1);
   }
   cb_obj_hist = cb_clo.object_granularity > 0;
   /* pooled nodes: a malloc-heavy client adds and removes one per block */
   heap_blocks = VG_(OSetGen_Create_With_Pool)(offsetof(cb_block, start), NULL,
                                               cb_mem_objects_alloc, "cb.obj.heap",
                                               cb_mem_objects_free,
                                               1024, sizeof(cb_block));
   static_blocks = VG_(OSetGen_Create)(offsetof(cb_block, start), NULL,
                                       cb_mem_objects_alloc, "cb.obj.static",
                                       cb_mem_objects_free);
   unnamed_blocks = VG_(OSetGen_Create)(offsetof(cb_block, start), NULL,
                                        cb_mem_objects_alloc, "cb.obj.unnamed",
                                        cb_mem_objects_free);
   bucket_stack = CB_MALLOC("cb.obj.stacks", VG_N_THREADS * sizeof *bucket_stack);
   VG_(memset)(bucket_stack, 0, VG_N_THREADS * sizeof *bucket_stack);
   stack_block = CB_MALLOC("cb.obj.stacks", VG_N_THREADS * sizeof *stack_block);
   VG_(memset)(stack_block, 0, VG_N_THREADS * sizeof *stack_block);
   chain_links_size = 4093;
   chain_links = CB_MALLOC("cb.obj.links", chain_links_size * sizeof *chain_links);
   VG_(memset)(chain_links, 0, chain_links_size * sizeof *chain_links);
   cells_bits = 14;
   cells = CB_MALLOC("cb.obj.cells", ((UWord)1 << cells_bits) * sizeof *cells);
   VG_(memset)(cells, 0, ((UWord)1 << cells_bits) * sizeof *cells);
   pairs_bits = 14;
   pairs = CB_MALLOC("cb.obj.pairs", ((UWord)1 << pairs_bits) * sizeof *pairs);
   VG_(memset)(pairs, 0, ((UWord)1 << pairs_bits) * sizeof *pairs);
   cb_obj_root_chain = new_root(0);
   if (cb_clo.separate_threads) {
      cb_obj_thread_roots = CB_MALLOC("cb.obj.roots", VG_N_THREADS * sizeof *cb_obj_thread_roots);
      VG_(memset)(cb_obj_thread_roots, 0, VG_N_THREADS * sizeof *cb_obj_thread_roots);
      cb_obj_use_thread_root();
   }
   bucket_unknown = cb_obj_new(OK_BUCKET, "[unknown]");
   cb_obj_allocator = cb_obj_new(OK_BUCKET, "[allocator]");
   bucket_code = cb_obj_new(OK_BUCKET, "[code]");
}
