/* callgrind-bd: what the tool's own tables hold, and --max-memory
 * (memory.c). Included by global.h. */
#ifndef CB_MEMORY_H
#define CB_MEMORY_H

/* The tables whose memory is counted, in the order -v prints them. */
typedef enum {
   CB_MEM_BBS,        /* basic blocks: BB, instruction and exit info */
   CB_MEM_COSTS,      /* cost centres (BBCCs) with their cost arrays */
   CB_MEM_ARCS,       /* call arcs (JCCs) with their inclusive costs */
   CB_MEM_CONTEXTS,   /* contexts (function + callers) */
   CB_MEM_STACKS,     /* shadow call stacks, function stacks, threads */
   CB_MEM_NAMES,      /* objects, files, functions */
   CB_MEM_TREES,      /* back-dating trees */
   CB_MEM_OBJECTS,    /* data objects (--objects=yes) */
   CB_MEM_CACHES,     /* the cache model (fixed at start) */
   CB_MEM_OTHER,      /* instrumentation and everything else */
   CB_MEM_KINDS
} cb_mem_kind;

/* Counting allocation: the caller knows the size again when it frees. */
void *cb_mem_alloc(cb_mem_kind k, const HChar *cc, SizeT bytes);
void *cb_mem_realloc(cb_mem_kind k, const HChar *cc, void *p,
                     SizeT old_bytes, SizeT new_bytes);
void  cb_mem_free(cb_mem_kind k, void *p, SizeT bytes);
/* For callers that cannot give the size back (the pure C parts, OSets):
 * the block remembers its size and kind in a small header. */
void *cb_mem_alloc_tagged(cb_mem_kind k, const HChar *cc, SizeT bytes);
void  cb_mem_free_tagged(void *p);

/* Set when the total passed the limit; cb_mem_check acts on it. */
extern Bool cb_mem_over;
/* --max-memory=<size>: False (and *why set) for a malformed value. */
Bool cb_mem_parse_limit(const HChar *value, const HChar **why);
void cb_mem_post_clo_init(void);
/* At a safe point (the scheduler starting a time slice): when the limit
 * was passed, write the profile so far, marked incomplete, and stop. */
void cb_mem_check(void);
void cb_mem_print_stats(void);
ULong cb_mem_total(void);

#endif
