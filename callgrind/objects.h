/* callgrind-bd: data objects (--objects=yes) -- the interface the rest of
 * the tool calls, and the per-access fast path.
 *
 * Model (details in objects.c and docs/manual.md, "Data objects"):
 *   - an *object* is what costs are attributed to: a heap allocation site
 *     (the allocating call site plus --object-callers caller sites; every
 *     block allocated there belongs to it), a static variable (by symbol),
 *     or a bucket ([stack thread N], [allocator], [code], [unknown]);
 *   - a *block* is one live address range of an object (one malloc'd
 *     block, one static variable, one thread's stack);
 *   - a *cell* is the cost of one object accessed by one instruction (in
 *     one cost centre): immediate events (accesses, misses) are added at
 *     the access, back-dated events (AcCost, SpLoss) when a line the cell
 *     loaded leaves the cache;
 *   - a *chain* is an interned call chain (the arcs on the shadow call
 *     stack); it sums the costs of all accesses made under it, the same
 *     events at the same moments, so the chains give exact inclusive
 *     costs along every call chain;
 *   - a line's owner remembers the cell and the chain of the access that
 *     loaded it, so that its back-dated costs reach both (the chain by its
 *     number; with --object-granularity, whose offset takes that place,
 *     a *pair* (cell, chain) of 24 bytes). The product of instructions,
 *     objects and chains (millions in an interpreter) is not stored.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_OBJECTS_H
#define CB_OBJECTS_H

#include "global.h"
#include "cachesim.h"

/* Object events, a fixed order independent of the profile's events. */
enum {
   OE_Dr, OE_Dw, OE_D1mr, OE_D1mw, OE_DLmr, OE_DLmw, OE_DLdmr, OE_DLdmw,
   OE_D2mr, OE_D2mw,               /* --L2 */
   OE_D1Ts, OE_D1Fs, OE_Inv,       /* --private-caches */
   OE_AcCost1, OE_SpLoss1, OE_AcCost2, OE_SpLoss2,
   OE_AcCostL2, OE_SpLossL2,       /* --L2 --cacheuse=yes */
   OE_COUNT
};

struct cb_obj;

/* An interned call chain: the arc entered last and the chain it was
 * entered from. in_alloc: some frame of the chain is an allocator call. */
typedef struct cb_chain {
   struct cb_chain *parent;
   JCC   *jcc;
   Bool   in_alloc;
   ThreadId tid;                 /* its thread with --separate-threads=yes, else 0 */
   void  *code_owner;            /* [code] cell (a pair with a histogram) */
   UInt   id;                    /* its number (in line owners) */
   struct cb_chain *next_all;    /* all chains, newest first */
   ULong  incl[OE_COUNT];        /* costs of its accesses in the part (when
                                  * writing: of those below it too) */
} cb_chain;

typedef struct cb_block {
   Addr   start;
   SizeT  len;                 /* 0 once released */
   UWord  gen;                 /* 0: a real block; else negative-cache generation */
   struct cb_obj *obj;
} cb_block;

typedef struct cb_cell {
   struct cb_obj   *obj;
   const sim_instr_info  *ii;        /* accessing instruction (NULL: [code] of chain) */
   BBCC            *bbcc;      /* the cost centre it ran in (its function, its
                                * block's source positions; whether it is idle
                                * at a dump), or NULL */
   cb_chain        *chain;     /* [code] cells: the chain whose instruction lines */
   ULong            cost[OE_COUNT];
   struct cb_cell  *next_of_obj;
   ThreadId         tid;        /* its thread with --separate-threads=yes, else 0 */
   /* Costs of a block that never completed (see cb_obj_block_dropped):
    * like the profile, they reach the call arcs but no self cost. */
   Bool             arcs_only;
   /* Its immediate costs include some carried over from the part before
    * (see objects_parts.c): they reach its self cost, not the arcs. */
   Bool             carried;
   Bool             held;       /* its immediate costs wait for the next part */
   Bool             skipped;    /* ran skipped: charged to a caller's skipped costs */
   UInt             last_off;   /* with a histogram: offset of its last access */
   struct cb_cell  *twin;       /* the arcs-only cell of this one */
} cb_cell;

typedef struct cb_pair {
   cb_cell        *cell;
   cb_chain       *chain;
   struct cb_pair *next_hash;
} cb_pair;

/* What an access needs from the object model: the cell to charge and the
 * histogram granule of the accessed byte. */
/* (The chain is the current one, cb_obj_chain_now, from the access to its
 * outcome: a small struct, which the compiler keeps in registers.) */
typedef struct { cb_cell *cell; UInt gran; } cb_obj_ref;

/* A line owner keeps the access's block offset in 16-byte units (the
 * smallest line size), so 32 bits cover blocks of 64 GB. */
#define CB_OBJ_OFF_SHIFT 4

/* Direct-mapped cache of address -> block, indexed by 64-byte granule
 * (fine enough that neighbouring small blocks rarely share a slot), 2 MB
 * of pointers covering 16 MB of data before slots alias. */
#define CB_OBJ_CACHE_BITS 18
#define CB_OBJ_CACHE_SHIFT 6
#define CB_OBJ_SLOT(a) (((a) >> CB_OBJ_CACHE_SHIFT) & ((1 << CB_OBJ_CACHE_BITS) - 1))
extern cb_block *cb_obj_cache[1 << CB_OBJ_CACHE_BITS];
extern UWord cb_obj_gen;
extern cb_chain *cb_obj_root_chain;   /* of the running thread */
extern cb_chain **cb_obj_thread_roots; /* by thread id with --separate-threads=yes */
void cb_obj_use_thread_root(void);
extern struct cb_obj *cb_obj_allocator;  /* bucket of allocator-internal accesses */
extern Bool cb_obj_hist;                 /* --object-granularity given */

cb_block *cb_obj_lookup_slow(Addr a);
cb_cell  *cb_obj_cell_slow(const sim_instr_info *ii, struct cb_obj *obj, cb_chain *chain);
UInt      cb_obj_granule(struct cb_obj *obj, Addr offset);

static inline __attribute__((always_inline)) cb_block *cb_obj_lookup(Addr a)
{
   cb_block *b = cb_obj_cache[CB_OBJ_SLOT(a)];
   if (LIKELY(b && a - b->start < b->len && (b->gen == 0 || b->gen == cb_obj_gen)))
      return b;
   return cb_obj_lookup_slow(a);
}

/* The chain of the running code: that of the top frame of the current
 * execution state, or the root (a signal handler starts from the root,
 * as in the profile: its frames lie above the bottom of its state).
 * Cached; the cache is dropped whenever frames, threads or execution
 * states change. */
extern cb_chain *cb_obj_chain_now;
static inline void cb_obj_chain_changed(void) { cb_obj_chain_now = NULL; }
/* Another thread or signal state runs (threads.c): a new chain, and
 * negative lookup entries die (see unknown_extent in objects.c). */
static inline void cb_obj_state_changed(void)
{
   cb_obj_chain_now = NULL;
   cb_obj_gen++;
   if (UNLIKELY(cb_obj_thread_roots != NULL)) cb_obj_use_thread_root();
}
static inline cb_chain *cb_obj_current_chain(void)
{
   Int sp;
   if (LIKELY(cb_obj_chain_now != NULL)) return cb_obj_chain_now;
   sp = cb_calls->sp;
   cb_obj_chain_now = sp > cb_cur.es->call_stack_bottom
                      ? (cb_chain *)cb_calls->entry[sp - 1].obj_chain : cb_obj_root_chain;
   return cb_obj_chain_now;
}

/* Before a data access: find its cell (and fill the line owner's object
 * part when cache use is simulated). A line owner remembers the cell and
 * the chain: the chain's number in obj_off, or, with a histogram (whose
 * obj_off is the access's offset), a pair. */
cb_obj_ref cb_obj_before_hist(sim_instr_info *ii, Addr a, cs_owner *o, cb_chain *chain);
static inline __attribute__((always_inline)) cb_obj_ref cb_obj_before(sim_instr_info *ii, Addr a, cs_owner *o)
{
   cb_obj_ref r;
   cb_chain *chain = cb_obj_current_chain();
   cb_block *b;
   struct cb_obj *obj;
   cb_cell *c;
   if (UNLIKELY(cb_obj_hist)) return cb_obj_before_hist(ii, a, o, chain);
   b = chain->in_alloc ? NULL : cb_obj_lookup(a);
   obj = b ? b->obj : cb_obj_allocator;
   c = (cb_cell *)ii->obj_cell;
   if (UNLIKELY(!c || c->obj != obj || c->bbcc != cb_cur.bbcc)) {
      c = cb_obj_cell_slow(ii, obj, chain);
      ii->obj_cell = c;
   }
   r.cell = c;
   r.gran = 0;
   if (o) {
      o->obj = c;
      o->obj_off = chain->id;
   }
   return r;
}

/* After the access, while collecting: its outcome (cachesim result bits). */
void cb_obj_count_hist(cb_obj_ref r, unsigned res, Bool is_write);
static inline void cb_obj_count(cb_obj_ref r, unsigned res, Bool is_write)
{
   ULong *c = r.cell->cost, *in = cb_obj_chain_now->incl;
   if (UNLIKELY(cb_obj_hist)) { cb_obj_count_hist(r, res, is_write); return; }
   c[OE_Dr + is_write]++; in[OE_Dr + is_write]++;
   if (LIKELY(!(res & CS_L1_MISS))) return;
   c[OE_D1mr + is_write]++; in[OE_D1mr + is_write]++;
   if (UNLIKELY(res & CS_L2_MISS)) { c[OE_D2mr + is_write]++; in[OE_D2mr + is_write]++; }
   if (!(res & CS_LL_MISS)) return;
   c[OE_DLmr + is_write]++; in[OE_DLmr + is_write]++;
   if (res & CS_LL_DIRTY_MISS) { c[OE_DLdmr + is_write]++; in[OE_DLdmr + is_write]++; }
}

/* After the access, while collecting, with --private-caches: its
 * coherence outcome when nonzero (coherence.h: class, invalidations). */
void cb_obj_count_coherence(cb_obj_ref r, unsigned cc);

/* A line loaded by an object access leaves a cache. */
void cb_obj_evict(const cs_owner *o, int level, UInt accost, UInt sploss);
/* The object of the access that loaded a line (--paths: the object as
 * the last frame of the back-dated events' paths), or NULL. */
struct cb_obj *cb_obj_of_owner(const cs_owner *o);
/* An object as the .objects profile names it: its ob= ("[heap]", ...), a
 * tab and the name of its fn= line, after prefix (paths.c). */
void cb_obj_write_frame(cb_outfile *f, const HChar *prefix, const struct cb_obj *o);

/* Instruction lines belong to [code], per call chain, so that the objects
 * profile's inclusive costs are those of the profile itself. */
void *cb_obj_code_owner_of(cb_chain *chain);
static inline void cb_obj_instr_owner(cs_owner *o)
{
   cb_chain *chain;
   if (!o) return;
   chain = cb_obj_current_chain();
   o->obj = LIKELY(chain->code_owner != NULL) ? chain->code_owner : cb_obj_code_owner_of(chain);
   o->obj_off = cb_obj_hist ? 0 : chain->id;
}

/* At exit (main.c): the block running in the current thread never
 * completed; the profile does not write its self costs (old_cost, n
 * slots) but keeps them in the inclusive costs around it. */
void cb_obj_block_dropped(const BB *bb, const ULong *old_cost, SizeT n);

/* Call tracking (callstack.c): a frame was pushed / is about to be popped. */
void cb_obj_frame_pushed(call_entry *e, JCC *jcc, fn_node *to_fn, Bool skip);
void cb_obj_frame_popping(call_entry *e);

/* Dumps and zeroing (dump.c; objects_parts.c). A dump of the profile
 * file `name` (one thread's with --separate-threads=yes, else NULL: all)
 * writes `name`.objects with the same part's object costs, then resets
 * them as the profile's; called before the profile's cost centres are
 * reset (which cost centres are idle decides what waits). */
void cb_obj_dump(const HChar *name, thread_info *only, const HChar *trigger,
                 Int part, Bool appending);
void cb_obj_zero(thread_info *only);

void cb_obj_post_clo_init(void);   /* objects.c: the tables */
void cb_obj_dump_init(void);       /* objects_dump.c: the file can be made */
void cb_obj_fini(void);            /* objects_dump.c: the -v report */

#endif
