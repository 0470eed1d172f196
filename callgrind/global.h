/* callgrind-bd: the declarations of the Valgrind side of the tool
 * (callgrind/), one section per file: each section declares exactly the
 * names its file defines and others use, so that a name is found next to
 * the file that owns it. callgrind/README.md maps the files to their jobs
 * and draws the data path; the data objects (objects*.c) have their own
 * headers, objects.h and objects_int.h.
 *
 * The model follows the reference Callgrind's, because its numbers are
 * what users compare against:
 *   - a BB is one translated superblock, keyed by its first guest address;
 *     all of it belongs to the function of its first instruction;
 *   - a BBCC is a BB's cost centre within one context (function plus
 *     optional callers) and recursion level;
 *   - a JCC is a call arc: (caller BBCC, exit of that BB, callee BBCC)
 *     with a call count and an inclusive cost;
 *   - every execution context (a thread, a running signal handler) keeps a
 *     running counter of all events; inclusive costs are differences of it.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_GLOBAL_H
#define CB_GLOBAL_H

#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_seqmatch.h"
#include "pub_tool_transtab.h"

#include "bd_config.h"
#include "cachesim.h"      /* cs_geometry, cs_hooks: geometry.c, backdating.c */
#include "sharing.h"       /* sh_model: falseshare.c */

#define CB_MALLOC(cc, n) VG_(malloc)((cc), (n))   /* not counted (memory.c):
                                                  * fixed or short-lived */
#define CB_FREE(p)       VG_(free)(p)
#define CB_ASSERT(c)     tl_assert(c)

/*------------------------------------------------------------*/
/*--- memory.c: what the tables hold, --max-memory         ---*/
/*------------------------------------------------------------*/

/* The tables whose memory is counted, in the order -v prints them. */
typedef enum {
   CB_MEM_BBS,        /* basic blocks: BB, instruction and exit info */
   CB_MEM_COSTS,      /* cost centres (BBCCs) with their cost arrays */
   CB_MEM_ARCS,       /* call arcs (JCCs) with their inclusive costs */
   CB_MEM_CONTEXTS,   /* contexts (function + callers) */
   CB_MEM_STACKS,     /* shadow call stacks, function stacks, threads */
   CB_MEM_NAMES,      /* objects, files, functions */
   CB_MEM_TREES,      /* back-dating trees */
   CB_MEM_PATHS,      /* call paths (--paths=yes) */
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
HChar *cb_mem_strdup(cb_mem_kind k, const HChar *cc, const HChar *s);
/* tagged, CB_MEM_OBJECTS, with the signatures OSets take */
void *cb_mem_objects_alloc(const HChar *cc, SizeT bytes);
void  cb_mem_objects_free(void *p);

/* Set when the total passed the limit; cb_mem_check acts on it. */
extern Bool cb_mem_over;
/* --max-memory=<size>: False (and *why set) for a malformed value. */
Bool cb_mem_parse_limit(const HChar *value, const HChar **why);
void cb_mem_post_clo_init(void);
/* At a safe point (the scheduler starting a time slice): NULL, or when
 * the limit was passed the trigger of the profile that stops the run. */
const HChar *cb_mem_check(void);
void cb_mem_print_stats(void);
ULong cb_mem_total(void);


/*------------------------------------------------------------*/
/*--- main.c: registration, start and end of a run         ---*/
/*------------------------------------------------------------*/

void cb_finish_run(const HChar *trigger);
void cb_stop_run(const HChar *why);   /* does not return */
/* The thread whose client code runs now (main.c, told by the scheduler
 * before each time slice): the tracker's fast path reads it instead of
 * asking the core. */
extern ThreadId cb_running_tid;

/*------------------------------------------------------------*/
/*--- options.c: command-line options                      ---*/
/*------------------------------------------------------------*/

typedef struct {
   const HChar *out_format;     /* --callgrind-out-file */
   Bool   dump_instr, dump_line, compress_strings, compress_pos, combine_dumps;
   Bool   separate_threads, skip_plt, skip_direct_rec, pop_on_jump;
   Int    separate_callers, separate_recs;
   Bool   collect_atstart, instr_atstart, collect_jumps, collect_bus;
   Int    collect_systime;      /* SYSTIME_* */
   ULong  dump_every_bb;
   /* cache and branch simulation */
   Bool   simulate_cache, cacheuse, simulate_wb, simulate_hwpref, branch_sim;
   Bool   backdate, backdate_check;
   Bool   paths;                  /* --paths: <profile>.paths (paths.c) */
   Bool   defer_sim;              /* debugging: helpers at the block's end (sim.c) */
   Bool   i1_set, d1_set, ll_set;
   Int    i1[3], d1[3], ll[3];     /* size, assoc, line */
   Bool   l2_set, l2_host;         /* --L2=<size>,<assoc>,<line> / --L2=host */
   Int    l2[3];
   Int    prefetch_distance;       /* --prefetch=stream[:<d>]; 0: off */
   Int    verbose;
   Bool   miss_class, reuse_dist;  /* --miss-class, --reuse-dist */
   Bool   private_caches;          /* --private-caches (cores.c) */
   Int    interleave;              /* blocks a thread's turn (interleave.c); 0: Valgrind's */
   Bool   pin_threads;             /* the turns on one host CPU (pinning.c) */
   /* data objects (objects.c) */
   Bool   objects;
   Int    object_callers;
   Int    object_granularity;   /* bytes; 0: no offset histogram */
   /* false sharing estimate (falseshare.c) */
   Bool   sharing;
   Int    sharing_penalty;      /* cycles per event */
   /* bandwidth requirements and dominance (bandwidth.c) */
   Bool   bandwidth;
   Int    bandwidth_unit;       /* BW_UNIT_* */
   Int    bandwidth_window;     /* W, time units */
   const HChar *bandwidth_limits;  /* machine file, or NULL */
   /* dependent misses (latency.c) */
   Bool   latency;
   Int    latency_window;       /* instructions a miss can delay a later one */
} cb_options;
extern cb_options cb_clo;

/* --interleave: a thread's turn in blocks; above Valgrind's own slice of
 * 100,000 blocks a turn would never end by itself */
#define CB_DEFAULT_INTERLEAVE 500
#define CB_MAX_INTERLEAVE     100000

/* --bandwidth-unit: the time unit */
enum { BW_UNIT_INSTR, BW_UNIT_FLOP };

/* --collect-systime: the unit of sysTime (yes = msec, as the reference) */
enum { SYSTIME_NO, SYSTIME_MSEC, SYSTIME_USEC, SYSTIME_NSEC };

/* One --separate-par=<function>:<n>[:<b1>,...] option, in the order
 * given (sep_par.c applies them to the functions). */
typedef struct cb_sep_par_option {
   const HChar *text;          /* the option as given, for messages */
   const HChar *pattern;
   UInt   param;               /* n: 1..6 */
   Long  *borders;             /* strictly increasing, or NULL */
   UInt   n_borders;
   Bool   matched;             /* by a function seen (sep_par.c) */
   struct cb_sep_par_option *next;
} cb_sep_par_option;
extern cb_sep_par_option *cb_sep_par_options;

Bool cb_process_cmd_line_option(const HChar *arg);
void cb_print_usage(void);
void cb_print_debug_usage(void);
void cb_options_post(void);
struct fn_node;
void cb_fn_config_apply(struct fn_node *fn);   /* per-function options */
void cb_fn_config_warn_unmatched(void);         /* at exit */

/*------------------------------------------------------------*/
/*--- events.c: the event registry, cost arrays            ---*/
/*------------------------------------------------------------*/

#define CB_RD_EVENTS 42   /* most reuse-distance buckets (lrustack: 40 + 2) */

/* Every event the tool can count, in the reference's output order.
 * Which of them are active is decided once, after option parsing. */
typedef enum {
   EV_Ir, EV_Dr, EV_Dw, EV_I1mr, EV_D1mr, EV_D1mw, EV_ILmr, EV_DLmr, EV_DLmw,
   EV_ILdmr, EV_DLdmr, EV_DLdmw,
   EV_Bc, EV_Bcm, EV_Bi, EV_Bim,
   EV_AcCost1, EV_SpLoss1, EV_AcCost2, EV_SpLoss2,
   /* Diagnostic events of the back-dating oracle (--backdate-check=yes):
    * lines loaded per level, counted at load time (immediate) and at
    * eviction time through the back-dating tree. */
   EV_L1ld, EV_LLld, EV_L1ldB, EV_LLldB,
   /* --collect-bus: atomic (LOCK-prefixed, CAS, SC) instructions */
   EV_Ge,
   /* --collect-systime: system calls, their elapsed time and (nsec) CPU time */
   EV_sysCount, EV_sysTime, EV_sysCpuTime,
   /* Miss classes (--miss-class=yes, missclass_events.c): compulsory, capacity,
    * conflict misses of I1, D1 and LL. */
   EV_I1Co, EV_I1Ca, EV_I1Cf, EV_D1Co, EV_D1Ca, EV_D1Cf,
   EV_LLCo, EV_LLCa, EV_LLCf,
   /* Reuse-distance buckets (--reuse-dist=yes, reusedist_events.c): EV_Rd + j is
    * bucket j; how many and their names depend on the LL size. */
   EV_Rd, EV_Rd_last = EV_Rd + CB_RD_EVENTS - 1,
   /* Coherence (--private-caches=yes, cores.c): true and false sharing
    * misses of D1, invalidations by stores. */
   EV_D1Ts, EV_D1Fs, EV_Inv,
   /* The third level (--L2, l2 in sim.c): misses of L2, written between
    * the L1 and the LL misses (their position in cost arrays is there too:
    * the output order is the order of positions, cb_ev_at). */
   EV_I2mr, EV_D2mr, EV_D2mw,
   /* --L2 with --cacheuse=yes: the L2's use metrics (written between the
    * L1's and the LL's, which keep their names), and with
    * --backdate-check=yes the oracle's L2 line counts */
   EV_AcCostL2, EV_SpLossL2, EV_L2ld, EV_L2ldB,
   /* The stream prefetcher (--prefetch=stream): prefetches issued; with
    * --cacheuse=yes also the prefetched lines used before they left D1 and
    * those that left unused (back-dated to the triggering instruction) */
   EV_Pfi, EV_Pfu, EV_Pfx,
   /* --miss-class=yes with --L2: the L2's misses by class (written
    * between D1's and LL's classes) */
   EV_L2Co, EV_L2Ca, EV_L2Cf,
   /* --bandwidth=yes (bandwidth.c): floating-point operations, and with
    * --bandwidth-limits the time units each path dominated (in the order
    * of cachesim/bandwidth.h's paths), then the units at peak */
   EV_Flop,
   EV_BwCr, EV_BwCw, EV_BwLr, EV_BwLw, EV_BwXr, EV_BwMr, EV_BwMw, EV_BwF,
   EV_BwMrA, EV_BwMwA, EV_BwPk,
   /* --latency=yes (latency.c): read misses of D1 and LL whose address
    * came from a value an earlier read miss of that level loaded */
   EV_D1dep, EV_DLdep,
   EV_COUNT
} event_id;

extern Int  cb_ev_pos[EV_COUNT];   /* position in a cost array, or -1 */
extern event_id cb_ev_at[EV_COUNT]; /* the event at a position: output order */
extern Int  cb_n_events;            /* length of every cost array */
extern const HChar *cb_ev_name[EV_COUNT];

/* Where event e sits in a cost array (-1: not counted). */
static inline Int cb_event_pos(event_id e) { return cb_ev_pos[e]; }

void   cb_event_declare(event_id e, const HChar *name);
void   cb_events_setup(void);
Bool   cb_events_per_instr(void);
Bool   cb_event_backdated(event_id e);   /* AcCost1, SpLoss1, ... Pfx */
ULong *cb_new_cost(cb_mem_kind k);   /* zeroed, cb_n_events long */

/* Small cost-array helpers. */
static inline void cb_zero_cost(ULong *c)
{ Int i; for (i = 0; i < cb_n_events; i++) c[i] = 0; }
static inline void cb_copy_cost(ULong *d, const ULong *s)
{ Int i; for (i = 0; i < cb_n_events; i++) d[i] = s[i]; }
static inline Bool cb_is_zero_cost(const ULong *c)
{ Int i;
  if (!c) return True;
  for (i = 0; i < cb_n_events; i++) if (c[i]) return False;
  return True; }
static inline void cb_add_cost(ULong *d, const ULong *s)
{ Int i; for (i = 0; i < cb_n_events; i++) d[i] += s[i]; }
/* d += new - old; returns whether anything changed */
static inline Bool cb_add_diff_cost(ULong *d, const ULong *old, const ULong *new)
{ Int i; Bool any = False;
  for (i = 0; i < cb_n_events; i++) { ULong x = new[i] - old[i]; d[i] += x; any |= (x != 0); }
  return any; }

/*------------------------------------------------------------*/
/*--- event_names.c: long names of events (event: lines)   ---*/
/*------------------------------------------------------------*/

/* NULL: none. Set here for ours; where an event is declared for names
 * that depend on options (reuse-distance buckets, units). */
extern const HChar *cb_ev_long[EV_COUNT];
void cb_write_event_names(const event_id *events, Int n, void (*emit)(const HChar *));

/*------------------------------------------------------------*/
/*--- fn.c: objects, files, functions                      ---*/
/*------------------------------------------------------------*/

typedef struct obj_node {
   const HChar *name;
   UInt   number;
   Addr   start;
   SizeT  size;
   PtrdiffT offset;           /* load bias: written addresses are relative */
   struct obj_node *next;
} obj_node;

typedef struct file_node {
   const HChar *name;
   obj_node *obj;
   UInt   number;
   struct file_node *next;
} file_node;

typedef struct fn_node {
   const HChar *name;
   file_node *file;
   UInt   number;
   Bool   skip, pop_on_jump, toggle_collect, dump_before, dump_after, zero_before;
   UInt   sharing_cut;          /* --sharing: FS_CUT_* (falseshare.c) */
   Int    separate_callers, separate_recs;
   Bool   configured;
   struct fn_node *base;      /* itself; for a --separate-par context
                               * (sep_par.c) the function it splits */
   struct sep_par *separate_par;  /* --separate-par of this function */
   struct fn_node *next;
} fn_node;

struct BB;
fn_node  *cb_get_fn_node(struct BB *bb);   /* the function of a BB */
void      cb_debug_pos(Addr a, file_node *fn_file, obj_node *obj,
                       UInt *line, file_node **file);
obj_node *cb_get_obj_node(DebugInfo *di);
fn_node  *cb_fn_variant(fn_node *base, const HChar *name);
void      cb_init_fn_tables(void);
extern UInt cb_distinct_fns;

/*------------------------------------------------------------*/
/*--- sep_par.c: --separate-par, contexts by argument value ---*/
/*------------------------------------------------------------*/

void     cb_sp_config_apply(fn_node *fn);
fn_node *cb_sp_context_fn(fn_node *fn);
void     cb_sp_report_unmatched(void);
UWord    cb_guest_int_arg(UInt n);

/*------------------------------------------------------------*/
/*--- bb.c: basic blocks                                   ---*/
/*------------------------------------------------------------*/

typedef enum { jk_None, jk_Jump, jk_Call, jk_Return, jk_CondJump } jmp_kind;

typedef struct {
   UInt   offset;       /* from the BB's first address */
   UInt   size;
   UInt   line;
   file_node *file;
} instr_info;

typedef struct {
   jmp_kind kind;
   UInt    instr;       /* index of the instruction holding this exit */
} jmp_info;

typedef struct BB {
   Addr       addr;
   obj_node  *obj;
   VgSectKind sect_kind;
   fn_node   *fn;
   Bool       is_entry;     /* first instruction of a function */
   UInt       line;
   UInt       instr_count;
   UInt       cjmp_count;   /* conditional exits; jmp[] has one more */
   instr_info *instr;
   jmp_info   *jmp;
   struct BBCC *bbcc_list;
   struct sim_instr_info *sim_instr; /* per-instruction info for sim helpers */
   struct sim_call *sim_calls;  /* descriptors of the sim helper calls (sim_int.h) */
   UInt       n_sim_calls;
   UChar     *bw_flops;     /* --bandwidth: flops per instruction (bandwidth.c) */
   struct lat_block *lat;   /* --latency: the block's dependences (latency.c) */
   struct BB *next;         /* hash chain */
} BB;

BB  *cb_get_bb(Addr addr, UInt instr_count, Bool *seen_before);
void cb_init_bb_table(void);

/*------------------------------------------------------------*/
/*--- context.c: contexts, interned                        ---*/
/*------------------------------------------------------------*/

/* A context: the function and up to separate_callers callers. */
typedef struct context {
   UInt size;
   UInt path_fn;      /* --paths: its first level's number (paths.c), 0 before */
   UWord hash;
   struct context *next;
   fn_node *fn[0];
} context;

context *cb_get_cxt(fn_node **top, UInt size);
void     cb_init_cxt_table(void);
/* The written name of a function in a context: fn'level'caller'... */
void     cb_context_name(const context *cxt, UInt rec_index, HChar *buf, SizeT size);

/*------------------------------------------------------------*/
/*--- bbcc.c: cost centres and call arcs                   ---*/
/*------------------------------------------------------------*/

typedef struct JCC {
   struct BBCC *from, *to;
   UInt     jmp;
   jmp_kind  kind;
   ULong    call_counter;
   ULong   *cost;             /* inclusive, cb_n_events long */
   struct JCC *next_from;     /* in from->jmp[jmp].jcc_list */
   struct JCC *next_hash;
   /* with --paths, paths.c's memo of the arc follows (cb_paths_jcc_bytes):
    * runs without the option do not pay for it */
} JCC;

typedef struct {
   ULong ecounter;
   JCC  *jcc_list;
   struct BBCC *plain_next;   /* the cost centre (recursion level 0) that
                               * followed this exit last time if by a
                               * plain jump, else NULL (calltrack.c:
                               * plain_jump) */
} jmp_data;

typedef struct BBCC {
   BB      *bb;
   context *cxt;
   UInt     rec_index;
   struct BBCC **rec_array;   /* the cost centres of (bb, cxt) by recursion
                               * level, shared by them; rec_array[rec_index]
                               * is this one (bbcc.c) */
   ULong    ecounter_sum;
   ULong    ret_counter;
   ULong   *cost;             /* instr_count * cb_n_events, or NULL */
   ULong   *skipped;          /* costs of skipped callees, or NULL */
   struct BBCC *next_bbcc;    /* all BBCCs of the BB */
   struct BBCC *lru_next_bbcc;
   struct BBCC *next_hash;
   /* deferred simulation's counts (sim_replay.c): how many runs of the block
    * reached exactly k of the calls in hist_calls, not yet in cost */
   ULong   *hist;
   const struct sim_call *hist_calls;
   UInt     hist_n;
   Bool     hist_own;         /* hist is an allocation of its own, not
                               * the tail of the BBCC's (sim_replay.c) */
   jmp_data  jmp[0];
} BBCC;

/* A hash of cost centres: one per thread with --separate-threads=yes,
 * else one for all. */
typedef struct {
   UInt   size, entries;
   BBCC **table;
} bbcc_hash;
typedef struct {
   UInt   size, entries;
   JCC  **table;
} jcc_hash;

void  cb_init_bbcc_hash(bbcc_hash *h);
void  cb_init_jcc_hash(jcc_hash *h);
BBCC *cb_bbcc_first(BB *bb);
void  cb_bbcc_adopt(BBCC *bbcc, context *cxt);
BBCC *cb_bbcc_for_context(BB *bb, context *cxt, BBCC *last_bbcc);
BBCC *cb_bbcc_rec_level(BBCC *bbcc, UInt idx);
JCC  *cb_get_jcc(BBCC *from, UInt jmp, BBCC *to);
void  cb_forall_bbccs(bbcc_hash *h, void (*f)(BBCC *));

typedef struct {
   ULong bb_executions, call_counter, ret_counter, rec_call_counter;
   ULong distinct_objs, distinct_files, distinct_fns, distinct_contexts;
   ULong distinct_bbs, distinct_bbccs, distinct_jccs, bb_retranslations;
   ULong bbcc_clones, jcc_lru_misses;
} run_stats;
extern run_stats cb_stat;

/*------------------------------------------------------------*/
/*--- callstack.c: call stack, function stack              ---*/
/*------------------------------------------------------------*/

typedef struct {
   JCC     *jcc;            /* NULL for a call into a skipped function */
   Addr     sp;
   Addr     entry_sp;       /* guest SP at the callee's first block (0:
                             * unknown): a jump back to the callee's first
                             * instruction with this SP is a loop */
   Addr     ret_addr;
   BBCC    *nonskipped;
   context *cxt;            /* caller's context, restored on return */
   Int      fn_sp;
   ULong   *enter_cost;
   Bool     bd_pushed;      /* a back-dating node was entered */
   struct path_node *path_node;  /* --paths: the caller's path, returned to */
   Bool     counted;        /* in jcc's call count: made while collecting,
                             * or collection turned on since (callstack.c) */
   /* data objects (objects.c): the interned call chain up to this frame,
    * and an allocator call in progress */
   void    *obj_chain;
   UInt     obj_alloc_kind;
   UWord    obj_alloc_arg[2];
   void    *obj_alloc_site;
} call_entry;

typedef struct {
   Int size, sp;
   call_entry *entry;
} call_stack;

typedef struct {
   Int size;
   fn_node **bottom, **top;
} fn_stack;

void  cb_init_call_stack(call_stack *cs);
void  cb_ensure_call_stack(Int needed_sp);
void  cb_init_fn_stack(fn_stack *fs);
void  cb_push_cxt(fn_node *fn);
UInt *cb_fn_depth(UInt fn_number);
void  cb_push_call_stack(BBCC *from, UInt jmp, BBCC *to, Addr sp, Bool skip);
void  cb_push_faked_call(BBCC *from, BBCC *to);
void  cb_pop_call_stack(void);
Int   cb_unwind_call_stack(Addr sp, Int minpops);
void  cb_set_collect(Bool on);

/*------------------------------------------------------------*/
/*--- threads.c: threads, signal handlers, exec states     ---*/
/*------------------------------------------------------------*/

#define MAX_SIGHANDLERS 10

typedef struct exec_state {
   Int      sig;              /* 0: the thread's main flow */
   Bool     collect;
   context *cxt;
   UInt     jmps_passed;
   BBCC    *bbcc;
   BBCC    *nonskipped;
   ULong   *cost;             /* the running counter */
   Int      call_stack_bottom;
   Addr     entry_sp;         /* guest SP at the context's first block: the
                               * entry SP of the function at the bottom,
                               * which has no frame */
   struct bd_tree *bd;        /* back-dating tree of this context */
   /* --paths (paths.c): the context's root and current call path, and
    * the running counter when the current path last got its growth */
   struct path_node *path_root, *path_cur;
   ULong   *path_snap;
   Bool     path_adoptable;   /* its root may yet be found called (paths.c) */
} exec_state;

typedef struct thread_info {
   ThreadId   tid;
   Int        states_sp;
   exec_state *states[MAX_SIGHANDLERS];
   call_stack calls;
   fn_stack   fns;
   UInt      *fn_active;      /* recursion depth per function number */
   UInt       fn_active_size;
   ULong     *lastdump_cost;
   ULong     *underflow_cost;  /* counter when the call stack was last
                                 * emptied by force or dumped: a faked call
                                 * (return from an empty stack) lasts since */
   ULong     *sighandler_cost;
   bbcc_hash  bbccs;
   jcc_hash   jccs;
} thread_info;

/* The state the hot path works on: the current thread's top exec state. */
typedef struct {
   exec_state *es;            /* == cur_thread->states[states_sp] */
   thread_info *thread;
   ThreadId tid;
   BBCC    *bbcc;
   UInt     jmps_passed;
   Bool     collect;
   BBCC    *nonskipped;
   ULong   *cost;
   context *cxt;
   Int      sig;
   bbcc_hash *bbccs;          /* the tables its cost centres and arcs go */
   jcc_hash  *jccs;           /*   to: its own or thread 1's (bbcc.c) */
} cur_state;
extern cur_state cb_cur;
extern call_stack *cb_calls;     /* of the current thread */
extern fn_stack   *cb_fns;

void  cb_init_threads(void);
void  cb_switch_thread(ThreadId tid);
void  cb_exec_state_save(void);
void  cb_forall_threads(void (*f)(thread_info *));
thread_info **cb_get_threads(void);
void  cb_pre_signal(ThreadId tid, Int sigNo, Bool alt_stack);
void  cb_post_signal(ThreadId tid, Int sigNo);
void  cb_run_post_signal_on_call_stack_bottom(void);
const exec_state *cb_frame_state(const thread_info *t, Int i);
void  cb_settle_sim_counts(void);  /* before costs are read or zeroed */

/*------------------------------------------------------------*/
/*--- calltrack.c: the call tracker                        ---*/
/*------------------------------------------------------------*/

VG_REGPARM(3) void cb_setup_bbcc(BB *bb, const void *sim_calls, Addr sp);
extern ULong *cb_cost_base;        /* cost array of the running BBCC */

/*------------------------------------------------------------*/
/*--- instrument.c: instrumentation on/off                 ---*/
/*------------------------------------------------------------*/

extern Bool cb_instrument_state;   /* read by main.c, monitor.c */
void cb_instrument_init(Bool state);
void cb_set_instrument_state(const HChar *reason, Bool state);

/*------------------------------------------------------------*/
/*--- outfile.c: buffered profile files                    ---*/
/*------------------------------------------------------------*/

/* A profile file being written, buffered; a write error is
 * reported once and the rest of the file dropped. */
typedef struct {
   Int   fd;
   Bool  failed;
   const HChar *name;         /* for the error message */
   const HChar *what;         /* "profile", "objects profile" */
   Int   used;
   HChar buf[65536];
} cb_outfile;
void cb_out_start(cb_outfile *f, Int fd, const HChar *name, const HChar *what);
void cb_out_flush(cb_outfile *f);
void cb_out_str(cb_outfile *f, const HChar *s);
void cb_out_printf(cb_outfile *f, const HChar *fmt, ...) PRINTF_CHECK(2, 3);
void cb_out_u64(cb_outfile *f, ULong v);   /* decimal */
void cb_out_i64(cb_outfile *f, Long v);
void cb_out_finish(cb_outfile *f);   /* flush and close */
void cb_write_cmd_line(cb_outfile *f);  /* the profile's cmd: line */
const HChar *cb_open_error_text(UWord err);   /* why an open failed */

/*------------------------------------------------------------*/
/*--- geometry.c: the simulated caches' geometry           ---*/
/*------------------------------------------------------------*/

typedef struct {
   cs_geometry i1, d1, ll;
   cs_geometry l2;            /* --L2 only (has_l2) */
   Bool has_l2;
   Int min_line_size;         /* of all levels: longer accesses are cut */
   Int i1_line_bits;          /* log2 of the I1 line size: fetch groups */
} cb_cache_geometry;
extern cb_cache_geometry cb_geom;
void cb_geometry_setup(void);
Int  cb_geometry_max_line_size(void);
void cb_geometry_write_desc(cb_outfile *f);


/*------------------------------------------------------------*/
/*--- backdating.c: cache-use costs back-dated to arcs     ---*/
/*------------------------------------------------------------*/

/* The low bit of a line owner's slot pointer says whether the line was
 * loaded while collecting (cost slots are 8-byte aligned): the oracle
 * events count a line at eviction exactly when they counted it at load. */
#define CB_OWNER_COLLECTED 1UL

extern const cs_hooks cb_bd_cache_hooks;
void  cb_bd_use_charging(struct cs_sim *sim);
void  cb_bd_setup(void);
struct bd_tree *cb_bd_new_tree(struct path_node *root_path);
void  cb_bd_close_tree(struct bd_tree *t);
void  cb_bd_restart_tree(exec_state *es, const call_entry *frames, Int n);
void  cb_bd_retag_root(exec_state *es);
void  cb_bd_call(JCC *jcc);
void  cb_bd_adopt_root(JCC *jcc);
Int   cb_bd_known_so_far(const exec_state *es, void **arcs, ULong *known, Int max);
void  cb_bd_return(Int levels);
void  cb_bd_settle(void);
void  cb_bd_zero(struct cs_sim *sim, thread_info *only);
void  cb_bd_finish(void);
void  cb_bd_write_desc(cb_outfile *f);
void  cb_bd_print_stats(void);

/*------------------------------------------------------------*/
/*--- paths.c: --paths, costs per full call path           ---*/
/*------------------------------------------------------------*/

typedef struct path_node path_node;
void  cb_paths_new_context(exec_state *es, ThreadId tid);
void  cb_paths_end_context(exec_state *es);
void  cb_paths_restart(thread_info *t);
void  cb_paths_new_root_at_dump(thread_info *t, Int end);
/* the per-call hooks: paths.h, inlined into callstack.c */
void *cb_paths_tag(void *ctx, void *parent_tag, void *arc);
void  cb_paths_move_backdated(void *path, void *parent_path, const Int *pos,
                              const ULong *counters, Int n);
struct cb_obj;
void  cb_paths_object_cost(void *path, struct cb_obj *obj, event_id ac, UInt accost,
                           event_id sp, UInt sploss);
void  cb_paths_zero(thread_info *t);
void  cb_paths_charge_thread(thread_info *t);
void  cb_paths_dump(const HChar *profile_name, Int part, thread_info *only,
                    const HChar *trigger, Bool appending);
void  cb_paths_print_stats(void);
SizeT cb_paths_jcc_bytes(void);       /* what a JCC carries for paths.c */
void  cb_paths_thread_exit(thread_info *t);

/*------------------------------------------------------------*/
/*--- sim.c, sim_replay.c, sim_ir.c: the simulation        ---*/
/*------------------------------------------------------------*/

/* Per-instruction info handed to the branch simulation helpers (the
 * cache simulation helpers get self-contained descriptors, sim_int.h). */
typedef struct sim_instr_info {
   Addr  addr;
   UInt  size;
   UInt  cost_offset;      /* into the BBCC's cost array */
   void *obj_cell;         /* data objects: cell of the last access */
} sim_instr_info;

void cb_sim_post_clo_init(void);
void cb_sim_bb_begin(IRSB *sbOut, BB *bb, Bool fresh);
void cb_sim_instr(IRSB *sbOut, UInt idx, Addr addr, UInt size);
void cb_sim_stmt(IRSB *sbOut, IRStmt *st);
void cb_sim_exit(IRSB *sbOut, IRStmt *st);
void cb_sim_flush(IRSB *sbOut);
void cb_sim_final_jump(IRSB *sbOut, IRSB *sbIn);
void cb_sim_bb_end(IRSB *sbOut);
IRExpr *cb_sim_setup_arg(void);    /* cb_setup_bbcc's 2nd argument */
void cb_sim_replay(void);
void cb_sim_settle_thread(thread_info *t);
UInt cb_sim_hist_len(const BB *bb);   /* a new BBCC's histogram, or 0 */
extern UInt cb_replay_n;
/* The block whose setup runs now: its calls are replayed next. Inline:
 * it runs at every block's start. */
extern const void *cb_replay_calls;   /* the pending block's descriptors */
extern Bool cb_replay_split;          /* it was replayed in parts */
static inline void cb_sim_block_starts(const void *sim_calls)
{
   cb_replay_calls = sim_calls;
   cb_replay_split = False;
}
/* The deferred simulation of the last block, and a late LL fill, are done
 * before anything that could look at or change what they use
 * (sim_replay.c, cb_sim_settle). */
void cb_sim_settle(void);
static inline void cb_sim_catch_up(void)
{
   if (UNLIKELY(cb_replay_n != 0)) cb_sim_replay();
   cb_sim_settle();
}
void cb_sim_write_desc(cb_outfile *f);  /* the profile's desc: lines */
void cb_sim_clear(void);           /* instrumentation switched */
void cb_sim_zero(thread_info *only); /* zeroing: forget the past's lines */
void cb_sim_finish(void);          /* flush every line, settle the trees */
void cb_sim_print_stats(void);
void cb_sim_stream_prefetch_counts(ULong *issued, ULong *used, ULong *unused);
void cb_sim_switch_thread(ThreadId tid); /* --private-caches: its core */

/*------------------------------------------------------------*/
/*--- missclass_events.c: --miss-class events              ---*/
/*------------------------------------------------------------*/

struct cs_sim;
void cb_mc_setup(struct cs_sim *sim, const cs_geometry *i1,
                 const cs_geometry *d1, const cs_geometry *ll);
void cb_mc_clear(void);
void cb_mc_instr(ULong *slot, Addr a, UInt size, UInt result);
void cb_mc_data(ULong *slot, Addr a, UWord size, UInt result, Bool coherence);
void cb_mc_new_core(UInt k, struct cs_sim *core);   /* --private-caches */
void cb_mc_switch_core(UInt k);
/* I1 line of the classifier's last fetch (~0 when none): a fetch that
 * hits in that same line changes nothing, so do_instr skips the call. */
extern ULong cb_mc_i1_last_line;
extern Int   cb_mc_i1_line_bits;
static inline Bool cb_mc_same_i1_line(Addr a, UInt size)
{
   return (a >> cb_mc_i1_line_bits) == cb_mc_i1_last_line
       && ((a + size - 1) >> cb_mc_i1_line_bits) == cb_mc_i1_last_line;
}

/*------------------------------------------------------------*/
/*--- interleave.c: threads take turns every N blocks      ---*/
/*------------------------------------------------------------*/

Bool cb_il_active(void);
void cb_il_post_clo_init(void);
void cb_il_instrument(IRSB *sbOut);
void cb_il_thread_runs(ThreadId tid);
Int cb_il_os_thread(ThreadId tid);   /* its OS thread id; 0 before its first turn */
void cb_il_syscall(ThreadId tid, UInt sysno, UWord *args, SysRes *res);
void cb_il_thread_created(ThreadId parent, ThreadId child);
void cb_il_thread_exited(ThreadId tid);
void cb_il_print_stats(void);

/*------------------------------------------------------------*/
/*--- pinning.c: the turns on one host CPU                 ---*/
/*------------------------------------------------------------*/

void cb_pin_post_clo_init(void);
void cb_pin_alone(ThreadId tid);
void cb_pin_turn_starts(ThreadId tid);
void cb_pin_syscall(ThreadId tid, UInt sysno, UWord *args, SysRes *res);
void cb_pin_thread_created(ThreadId parent, ThreadId child);
void cb_pin_thread_exited(ThreadId tid);
void cb_pin_forked_child(ThreadId tid);
void cb_pin_print_stats(void);

/*------------------------------------------------------------*/
/*--- cores.c: private caches per thread (--private-caches) ---*/
/*------------------------------------------------------------*/

/* The model is cachesim/coherence.h; the access hook is inline in
 * cores.h (sim.c only). */
struct cc_sys;
struct cc_core;
extern struct cc_sys  *cb_cc;        /* NULL unless --private-caches=yes */
extern struct cc_core *cb_cc_core;   /* the running thread's core */
void cb_cores_setup(struct cs_sim *first);
struct cs_sim *cb_cores_switch(ThreadId tid);
void cb_cores_set_collect(Bool collecting);
void cb_cores_flush(void);
void cb_cores_clear(void);
UInt cb_cores_n(void);                  /* core slots */
struct cs_sim *cb_cores_sim(UInt k);    /* core k's caches, NULL if none */
void cb_cores_prefetch_counts(ULong *up, ULong *down);
void cb_cores_print_stats(void);
/* The coherence of a data access of the running core (result r) whose
 * line's state asks for work (cores.h's hook calls it): coherence.h's
 * outcome, not counted. */
unsigned cb_cores_coherence(Addr a, UWord size, unsigned r, Bool is_write);

/*------------------------------------------------------------*/
/*--- latency.c: dependent misses (--latency)              ---*/
/*------------------------------------------------------------*/

typedef struct lat_block lat_block;
void cb_lat_setup(void);
void cb_lat_bb_begin(IRSB *sbOut);
void cb_lat_access(UInt idx, Bool write, Bool merged, const IRExpr *addr, const IRExpr *data);
void cb_lat_other_access(UInt idx, Bool merged);
void cb_lat_stmt(IRStmt *st, Int idx, IRTypeEnv *env);
void cb_lat_exit_point(void);
void cb_lat_bb_end(BB *bb, Bool inverted);
void cb_lat_block_end(void);
void cb_lat_clear(void);
void cb_lat_thread_created(ThreadId tid);
/* After a data access was simulated with outcome r (sim_int.h's do_acc,
 * the replay): access i of call c at address a, or the block's access
 * idx; slot: its instruction's cost slot. */
struct sim_call;
void cb_lat_after_access(const struct sim_call *c, Int i, Addr a, unsigned r, ULong *slot);
void cb_lat_after_index(UInt idx, Addr a, unsigned r, ULong *slot);
void cb_lat_write_desc(cb_outfile *f);
void cb_lat_dumped(void);
void cb_lat_print_summary(const ULong *total, Int width);
/* The exec state whose block has run and not yet ended (enter_bbcc). */
extern const void *cb_lat_pending;
/* A chain's length at D1 and LL, and when its last miss there happened
 * (the thread's instruction count). */
typedef struct { UInt d1, ll, t1, tl; } lat_tag;
/* A thread's stored values with a tag: direct-mapped by 8-byte slot. */
#define LAT_MEM_SLOTS 4096
typedef struct { Addr addr; lat_tag tag; } lat_mem;
/* The running thread's tags, as the replay tests them (sim_int.h): hot
 * registers, values of the block with a tag, its table of stored values
 * (NULL: none within the window); after a thread switch, unknown (all
 * registers hot, every lookup made) until the next block's end. */
typedef struct { UInt hot; Bool block, unknown; const lat_mem *mem; } lat_state;
extern lat_state cb_lat_now;

/*------------------------------------------------------------*/
/*--- bandwidth.c: --bandwidth requirements and dominance  ---*/
/*------------------------------------------------------------*/

/* The model is cachesim/bandwidth.h; the access hooks are inline in
 * bandwidth_hooks.h (sim.c only), with the thread's state. */
struct cb_bw_thread;
extern struct cb_bw_thread *cb_bw_cur;   /* the running thread's; NULL when off */
extern UInt cb_bw_i1_line, cb_bw_d1_line, cb_bw_ll_line, cb_bw_d1_bits;
extern Bool cb_bw_batched;           /* units batched (bandwidth.c) */
extern ULong cb_bw_inv_events;       /* ceil(2^32 / events) */
void cb_bw__group(struct cb_bw_thread *t, UInt cost0, UInt n, ULong *slot0);
void cb_bw__batch_flush(struct cb_bw_thread *t);
void cb_bw__group_flops(struct cb_bw_thread *t, UInt cost0, UInt n, ULong *slot0,
                        Bool events);
extern Int cb_bw_flop_pos;           /* the Flop event's position */
struct sim_call;
struct cb_bw_block;
SizeT cb_bw_block_bytes(const struct sim_call *calls, UInt n);
Bool cb_bw_block_same(const struct sim_call *calls, const BB *bb);  /* as bb's now */
void cb_bw_block_made(const struct sim_call *calls, const BB *bb);
void cb_bw_settle_call(ULong *cost, const struct sim_call *calls, UInt n, UInt k, ULong runs);
void cb_bw__advance(struct cb_bw_thread *t, UInt cost);
void cb_bw__invalidated(struct cb_bw_thread *t, ULong first, ULong last);
void cb_bw_setup(struct cs_sim *first);  /* after the cache model; bad machine file: exit */
void cb_bw_caches_cleared(void);    /* cs_clear: no line is dirty any more */
void cb_bw_bb_begin(BB *bb);        /* a block is instrumented: its flops from 0 */
void cb_bw_stmt(BB *bb, Int instr, IRStmt *st);  /* counts the flops of st */
void cb_bw_switch_thread(ThreadId tid);
void cb_bw_thread_created(ThreadId parent, ThreadId child);
void cb_bw_thread_exit(ThreadId tid);
void cb_bw_syscall(ThreadId tid, Bool entering);  /* around every system call */
void cb_bw_sync(void);              /* every thread's running units closed */
void cb_bw_context_change(ThreadId tid);  /* a signal handler starts or ends */
void cb_bw_finish(const HChar *base);  /* at exit: drain, write <base>.bandwidth */

/*------------------------------------------------------------*/
/*--- reusedist_events.c: --reuse-dist events              ---*/
/*------------------------------------------------------------*/

void cb_rd_setup(const cs_geometry *ll);
void cb_rd_clear(void);
void cb_rd_data(ULong *slot, Addr a, UWord size);

/*------------------------------------------------------------*/
/*--- dump.c: writing profiles, zeroing                    ---*/
/*------------------------------------------------------------*/

void cb_init_dumps(void);
Bool cb_check_out_file(void);
void cb_check_companion_files(void);
void cb_remove_empty_out_file(void);
void cb_dump_profile(const HChar *trigger, Bool current_thread_only);
void cb_zero_all_cost(Bool only_current_thread);
void cb_mark_stacks_emptied(thread_info *t);
void cb_fini_dump(const HChar *trigger);
extern Int cb_out_counter;
extern ULong *cb_written_total;    /* totals: of every dump so far */
const HChar *cb_out_base_name(void); /* --callgrind-out-file, expanded */
const HChar *cb_last_part_base_name(void); /* <out>.<last part> */

/*------------------------------------------------------------*/
/*--- falseshare.c, falseshare_report.c, falseshare_bytes.c: --sharing ---*/
/*------------------------------------------------------------*/

/* fn_node.sharing_cut: where a function ends a parallel segment, and
 * the thread functions whose happens-before edges falseshare.c follows */
#define FS_CUT_AT_ENTRY 1u
#define FS_CUT_AT_EXIT  2u
#define FS_FORK_JOIN    4u    /* its cuts fork or join a parallel region */
#define FS_CREATE       8u    /* pthread_create: the new thread's handle */
#define FS_JOIN        16u    /* pthread_join and variants: the edge */

/* --sharing-penalty's default: perf/sharing-penalty.c's median on the
 * development machine (docs/manual.md, "Measuring the penalty") */
#define FS_DEFAULT_PENALTY 10

extern sh_model *cb_fs_model;     /* NULL unless --sharing=yes */

UInt cb_fs_fn_kind(const HChar *name);           /* FS_CUT_* of a function */
void cb_fs_fn_entered(const fn_node *fn);        /* first entry (callstack.c) */
void cb_fs_fn_left(const fn_node *fn);           /* last exit */
void cb_fs_end_segment(void);                    /* barrier or client request */
void cb_fs_thread_created(ThreadId parent, ThreadId child);  /* main.c */
void cb_fs_thread_exit(ThreadId tid);
void cb_fs_post_clo_init(void);
/* At exit and before an execve: the reports, named after the profile's
 * base name (main.c passes it: no call into dump.c from here). */
/* trigger: what ended the run or part, as the profile's (NULL: the end) */
void cb_fs_fini(const HChar *out_base, const HChar *trigger);
void cb_fs_write_reports(const HChar *out_base, const HChar *trigger); /* falseshare_report.c */
/* falseshare_bytes.c: for the text report, the bytes of line l each
 * thread and function touched while it was shared */
void cb_fs_text_bytes(const sh_line *l, cb_outfile *out);

/* A data access while collecting (sim.c); instr is the accessing
 * instruction's address. A read-modify-write (one Dw access in the
 * profile) is a load and a store, as the thesis counts it. */
static inline void cb_fs_access(Addr instr, Addr a, UWord size, Bool is_write)
{
   sh_access(cb_fs_model, cb_cur.tid, a, (UInt)size, is_write, instr);
}
static inline void cb_fs_modify(Addr instr, Addr a, UWord size)
{
   sh_modify(cb_fs_model, cb_cur.tid, a, (UInt)size, instr);
}

/*------------------------------------------------------------*/
/*--- mpirank.c: the MPI rank named by the launcher        ---*/
/*------------------------------------------------------------*/

void cb_mpi_rank_init(void);                 /* reads the environment */
void cb_mpi_rank_write_desc(cb_outfile *f);  /* desc: MPI rank: N (VAR) */

/*------------------------------------------------------------*/
/*--- summary.c: the exit summary                          ---*/
/*------------------------------------------------------------*/

void cb_print_summary(void);

/*------------------------------------------------------------*/
/*--- clreq.c, monitor.c: requests, monitor commands      ---*/
/*------------------------------------------------------------*/

Bool cb_handle_client_request(ThreadId tid, UWord *args, UWord *ret);
Bool cb_handle_gdb_monitor_command(ThreadId tid, HChar *req);

#endif
