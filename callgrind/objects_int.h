/* callgrind-bd: data objects -- declarations shared by objects.c,
 * objects_alloc.c and objects_dump.c only (the rest of the tool sees
 * objects.h).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_OBJECTS_INT_H
#define CB_OBJECTS_INT_H

#include "objects.h"

typedef enum { OK_HEAP, OK_STATIC, OK_BUCKET } obj_kind;

#define MAX_OBJECT_CALLERS 16

/* One call site of an allocation site's chain: the call instruction's
 * address (what identifies the site: a call instruction belongs to
 * several superblocks when a loop is entered from above), a block and
 * exit holding it (for its source position), and the function it runs in
 * (its context's, as the profile names it). */
typedef struct { Addr addr; BB *bb; UInt jmp; fn_node *fn; } cb_site;

typedef struct cb_obj {
   obj_kind      kind;
   const HChar *name;        /* as written: site chain, symbol or bucket */
   const HChar *file;        /* allocating file (heap), ELF file (static) */
   UInt         line;        /* allocating line (heap) */
   UInt         number;
   ULong        blocks;      /* blocks allocated (statics: 1) */
   ULong        bytes;       /* bytes allocated in all blocks */
   ULong        max_block;   /* largest block */
   UInt         gran_bytes;  /* histogram granularity (may grow) */
   UInt         hist_n;      /* granules in hist */
   ULong       *hist;        /* hist_n * OE_COUNT, or NULL */
   cb_cell     *cells;       /* every cell of this object */
   ULong        total[OE_COUNT];   /* self cost in the part being written */
   ULong        written[OE_COUNT]; /* in all parts written so far */
   UInt         n_sites;     /* heap: allocating site, then its callers */
   cb_site      sites[MAX_OBJECT_CALLERS + 1];
   struct cb_obj *next_hash, *next_all;
} cb_obj;

extern cb_obj *cb_obj_list;          /* all objects, in creation order */
extern UInt cb_obj_count_objs;
extern ULong cb_obj_n_chains, cb_obj_n_cells, cb_obj_n_pairs, cb_obj_slow_lookups;
extern ULong cb_obj_slow_found[4];
extern cb_chain *cb_obj_chains;

cb_obj   *cb_obj_new(obj_kind kind, const HChar *name);
const HChar *cb_obj_kind_name(const cb_obj *o);   /* ob=: [heap], [static], [other] */
void      cb_obj_heap_add(Addr start, SizeT len, cb_obj *o);
void      cb_obj_heap_remove(Addr start);
void      cb_obj_heap_remove_range(Addr start, SizeT len);
cb_obj   *cb_obj_heap_owner(Addr start);
cb_chain *cb_obj_chain(cb_chain *parent, JCC *jcc, Bool alloc_call);

/* Functions as the profile names them: the function of a cost centre's
 * context (a block inside a function without symbols has its own name). */
static inline fn_node *cb_obj_fn_of(const BBCC *b) { return b->cxt->fn[0]; }

/* Parts (objects_parts.c): costs a dump holds back or a part carries in. */
ULong cb_obj_held_cost(const cb_cell *c, Int e);
ULong cb_obj_carried_cost(const cb_cell *c, Int e);
Bool  cb_obj_in_part(const cb_cell *c, const thread_info *only);
void  cb_obj_find_held(thread_info *only);
void  cb_obj_hist_without_held(void);
void  cb_obj_start_part(thread_info *only);

/* Source position of a call site (the instruction of the exit). */
void cb_obj_site_pos(const cb_site *s, fn_node **fn, UInt *line, file_node **file);

#endif
