/*
** cachesim.h -- the cache model of callgrind-bd: I1, D1 and a unified LL.
**
** Pure C: no Valgrind header, no libc.  The includer supplies the three
** cs_* functions below (the tool in callgrind/, the unit tests in
** tests/unit/port_native.c), and backdate/'s three bd_* functions: the
** model is built with backdate/ (cs_charging).  The model, its rules and
** the reference behaviour it reproduces are described at the top of
** cachesim.c and in README.md next to this file.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef CACHESIM_H
#define CACHESIM_H

#include <stdint.h>

/* ---- supplied by the includer ------------------------------------------ */
void *cs_alloc(unsigned long bytes);      /* returns ZEROED memory */
void  cs_free(void *p);
void  cs_fail(const char *msg) __attribute__((noreturn));

/* ---- geometry ----------------------------------------------------------- */
typedef struct cs_geometry { int size, assoc, line_size; } cs_geometry;

/* NULL if g is usable, else the reference's message for it (static string
   ending in a newline, e.g. "Cache set count is not a power of two.\n"). */
const char *cs_geometry_check(const cs_geometry *g);

/* The reference's fix-up of an auto-detected LL cache (applied to the
   host-detected LL only, before the check): a set count that is not a
   power of two is rounded down to one, the associativity raised in
   proportion (rounded to nearest) and the size recomputed; a power-of-two
   set count only gets the size trimmed to sets*assoc*line.  *changed (if
   not NULL) is set to 1 when size or associativity changed, which is when
   the reference prints its two "specified/simulated LL cache" warnings. */
void cs_geometry_fixup_host(cs_geometry *g, int *changed);

/* The reference's defaults when nothing is detected (amd64/x86):
   I1 65536,2,64; D1 65536,2,64; LL 262144,8,64.  Any pointer may be NULL. */
void cs_geometry_defaults(cs_geometry *i1, cs_geometry *d1, cs_geometry *ll);

/* Writes the reference's description of a cache, as used in the
   "desc: I1 cache: ..." header lines: "65536 B, 64 B, 2-way associative",
   or "... B, ... B, direct-mapped" when assoc is 1.  Always NUL-terminates
   (truncates if buf is too small); returns the length written. */
int cs_geometry_desc(const cs_geometry *g, char *buf, int bufsize);

/* ---- owners and hooks (only used with cacheuse) ------------------------ */

/* Opaque to cachesim: the tool's loading-instruction cost slot and its
   back-dating node, and (data objects) the object cell charged and the
   access's offset in its block (kept only with cs_options.owner_ext).
   Copied by value into every line loaded. */
typedef struct { void *slot; void *node; void *obj; uint32_t obj_off; } cs_owner;

enum { CS_LEVEL_L2 = 3 };

typedef struct cs_hooks {
   void *ctx;
   /* A line was loaded into level (1 = I1/D1, 2 = LL, CS_LEVEL_L2 = the
      L2 of cs_set_l2) with this owner. */
   void (*on_load)(void *ctx, int level, const cs_owner *owner);
   /* A line loaded with owner leaves level (eviction, cs_flush, cs_clear).
      accost = 1000/count and sploss = ((32 - bits set) * line_size) / 32 if
      the line was used (count > 0) and collection is on; otherwise both 0.
      Called exactly once per on_load, so the tool can drop its reference. */
   void (*on_evict)(void *ctx, int level, const cs_owner *owner,
                    uint32_t accost, uint32_t sploss);
   /* (cs_set_stream_prefetch) A line the prefetcher loaded into D1 with
      owner (the access that triggered it) leaves D1, used (a demand
      access touched it) or not.  Called just before its on_evict; may be
      NULL. */
   void (*on_prefetch_end)(void *ctx, const cs_owner *owner, int used);
} cs_hooks;

/* Charging (cs_set_charging): the hooks' common work done by the model
   itself, so that a line's load and eviction cost no call (an L1 miss with
   cacheuse made four).  Owners are then the tool's in this form: slot an
   array of uint64_t counters (the lowest address bit is the tool's and
   ignored), node a node of the back-dating tree (backdate.h) or NULL.  A
   line leaving level L adds accost to slot[ac[L]] and sploss to
   slot[sp[L]], and gives both to its node (bd_evict2 at the node's
   counters pair[L] and pair[L] + 1); a line loaded takes a reference on
   its node (bd_ref).  A NULL slot charges nothing (an owner forgotten by
   cs_forget_owners).  While charging, on_load and on_evict are not called;
   on_prefetch_end still is.  Indexed by level: 1, 2 (LL), CS_LEVEL_L2. */
typedef struct { int ac[4], sp[4], pair[4]; } cs_charging;

/* ---- the simulator ------------------------------------------------------ */
typedef struct cs_sim cs_sim;
/* owner_ext: keep the owners' obj/obj_off (data objects) per line; they
   live in a side array, so that without them a line's entry stays small. */
typedef struct { int wb, hwpref, cacheuse, owner_ext; } cs_options;

/* Geometries must pass cs_geometry_check (cs_fail otherwise).  hooks may be
   NULL (then no hook is called); it is copied. */
cs_sim *cs_new(const cs_geometry *i1, const cs_geometry *d1,
               const cs_geometry *ll, cs_options opt, const cs_hooks *hooks);
void    cs_delete(cs_sim *);
/* Charge owners directly instead of calling on_load/on_evict (see
   cs_charging above); NULL: the hooks again.  ch is copied; cores made by
   cs_new_core later charge as s does. */
void    cs_set_charging(cs_sim *s, const cs_charging *ch);

/* Result bit flags of one access.  CS_LL_MISS implies CS_L1_MISS;
   CS_LL_DIRTY_MISS (write-back only) implies CS_LL_MISS.  In reference
   terms: 0 = L1 hit, 1 = LL hit, 3 = memory access, 7 = write-back
   memory access; so I1mr/D1mr/D1mw += r & 1, ILmr/DLmr/DLmw += (r >> 1) & 1,
   ILdmr/DLdmr/DLdmw += (r >> 2) & 1. */
enum { CS_L1_MISS = 1, CS_LL_MISS = 2, CS_LL_DIRTY_MISS = 4,
       CS_L2_MISS = 8, CS_PF_ISSUED = 16 };
/* With an L2 (cs_set_l2): CS_L2_MISS implies CS_L1_MISS and CS_LL_MISS
   implies CS_L2_MISS.  With the stream prefetcher (cs_set_stream_prefetch):
   CS_PF_ISSUED says the access made the prefetcher load a line; it may
   come with an L1 hit (the first use of a prefetched line). */

/* The three accesses.  An access may span at most two lines of every
   cache (the tool caps sizes at the smallest line size); otherwise
   cs_fail.  owner is only read with cacheuse on (may be NULL otherwise).
   Defined inline in cachesim_inline.h: the MRU hit is done in place. */
static inline unsigned cs_instr(cs_sim *, uint64_t addr, unsigned size,
                                const cs_owner *owner);
static inline unsigned cs_read (cs_sim *, uint64_t addr, unsigned size,
                                const cs_owner *owner);
static inline unsigned cs_write(cs_sim *, uint64_t addr, unsigned size,
                                const cs_owner *owner);

/* Collection state at the time of an eviction (default on).  Like the
   reference, a line evicted while collection is off yields no AcCost /
   SpLoss (on_evict gets 0, 0) and an L1 line then is not merged into LL.
   The tool must call this whenever the current context's collect flag
   changes (toggles, thread or signal-context switches). */
void cs_set_collect(cs_sim *, int collecting);

/* Late LL fill (cacheuse without write-back or L2; off by
   default; cores: see cs_new_core): an L1 miss that misses LL returns at once, and LL's victim
   leaves and the new line is loaded there (on_evict, on_load) later --
   the victim's entry, a host cache miss, then has had time to arrive.
   With the hooks, at the next access that is no MRU hit, or at
   cs_settle: the hooks see the same calls in the same order, with the
   same arguments, but later; the tool calls cs_settle before anything
   the hooks' outcome must be seen by (its tree, its costs) or that the
   hooks depend on, and cs_settle_hooks before building the owner of an
   access that is no MRU hit.  With charging (cs_set_charging), up to
   four fills wait, made in order when their entry is needed or at
   cs_settle; the costs charged and delivered are the same once settled
   (cachesim.c: LATE LL FILL), and cs_settle_hooks does nothing.  Every
   function below settles itself, as does every access that is no MRU hit
   and does not take the probe's way (cs_l1_probe). */
void cs_set_late_ll_fill(cs_sim *, int on);
static inline void cs_settle(cs_sim *);

/* Final flush: on_evict for every line still holding an owner -- I1, then
   D1 (each merged into its LL line first, so LL sees that use), then LL --
   and all caches are empty afterwards (prefetch detectors are kept).
   Without cacheuse it only empties the caches. */
void cs_flush(cs_sim *);

/* Empty all caches and reset the prefetch detectors, as the reference does
   when instrumentation is switched.  Use data is DROPPED: owned lines get
   on_evict(..., 0, 0) (no merge), only so the tool can release its node
   references.  Call cs_flush first to keep the data. */
void cs_clear(cs_sim *);

/* Forget owners (zeroing: costs of the past are discarded, including the
   use metrics of lines the past loaded, still resident now).  For every
   line holding an owner, forget(ctx, level, owner) is asked; when it
   returns nonzero (having dropped whatever references it held) the line
   keeps its place, LRU state and use data but belongs to nobody from then
   on: when it leaves, on_evict still comes, with slot and node NULL.
   Nothing else changes, so later hits, misses and merges are exactly as
   without forgetting. */
void cs_forget_owners(cs_sim *,
                      int (*forget)(void *ctx, int level, const cs_owner *),
                      void *ctx);

/* Hardware-prefetch statistics (the reference prints them with -v as
   "Prefetch Up:" and "Prefetch Down:").  Not reset by cs_clear. */
uint64_t cs_prefetches(cs_sim *);   /* up + down */
void     cs_prefetch_counts(cs_sim *, uint64_t *up, uint64_t *down);

/* ---- optional third level: a private L2 (l2.c) ----------------------- */

/* Puts a unified L2 of geometry g between I1/D1 and LL.  Call right after
   cs_new, before any access.  Every L1 miss looks L2 up and only an L2
   miss goes on to LL.  With cacheuse its lines are reported at level
   CS_LEVEL_L2; L1 lines merge into L2, L2 lines into LL.  The rules are
   at the top of l2.c.  A core made by cs_new_core gets an L2 of its own;
   cs_flush_l1 flushes it with the L1s. */
void cs_set_l2(cs_sim *, const cs_geometry *g);

/* ---- stream prefetcher (thesis 3.4.1; streampf.c) ---------------------- */

/* Turns on the stream prefetcher for D1 with the given distance in lines
   (>= 1).  Call right after cs_new (and cs_set_l2), before any access;
   not with cacheuse nor hwpref (cs_fail).  The rules are at the top of
   streampf.c.  A core made by cs_new_core gets a prefetcher of its own. */
void cs_set_stream_prefetch(cs_sim *, int distance);
/* With cacheuse: a prefetched line is loaded into D1 with count 0, no
   bits and the triggering access as owner; when it leaves D1,
   on_prefetch_end tells whether it was used, and one never used reports
   SpLoss = line size (AcCost 0). */

/* Lines the prefetcher loaded into D1 (issued), prefetched lines a demand
   access used before they left D1 (used) and prefetched lines that left
   D1 (eviction, cs_flush, cs_clear) before any use (unused).  issued =
   used + unused + prefetched lines still in D1 unused. */
typedef struct { uint64_t issued, used, unused; } cs_spf_counts;
void cs_stream_prefetch_counts(const cs_sim *, cs_spf_counts *);

/* ---- private caches (cores over one LL; see coherence.h) --------------- */

/* A new core: I1 and D1 of its own, empty, with first's geometry,
   options, hooks, collect flag, LL observer and late LL fill; its LL is
   first's (the same lines, LRU state and dirty bits).  With the late fill
   each core has a ring of its own, which another core does not see: the
   caller settles (cs_settle) the core that ran before any other core
   accesses or is flushed, cleared or asked about (coherence.c settles the
   accessing core before it touches the others).  Delete every core made
   this way (cs_delete_core) before first (cs_delete). */
cs_sim *cs_new_core(const cs_sim *first);
void    cs_delete_core(cs_sim *);

/* cs_flush for I1 and D1 (and the core's L2, cs_set_l2) only.  With
   several cores, flush every core's L1s first and then the LL once
   (cs_flush on one core): so every L1 line merges into an LL line that
   has not been flushed yet. */
void cs_flush_l1(cs_sim *);

/* Whether D1 holds the line of address a. */
int cs_d1_holds(const cs_sim *, uint64_t a);

/* Removes the line of address a from D1 (coherence invalidation): it
   leaves as if evicted (with cacheuse on_evict reports it, its use merges
   into LL while collecting) and its way becomes the set's least recently
   used, empty.  Returns 1 if D1 held the line, else 0 (nothing changes). */
int cs_d1_invalidate(cs_sim *, uint64_t a);

/* ---- LL observer -------------------------------------------------------- */

/* Every lookup the model makes in LL, in order, before it happens: line is
   the address divided by LL's line size (all 64 bits).  kind says why:
   CS_LL_DEMAND for an access's own references (after an L1 miss, and the
   write-through of a D1 write hit with write-back), CS_LL_PREFETCH for a
   prefetch, CS_LL_PREFETCH_BLIND for a prefetch made through the plain
   line-number lookup on the write-back LL (the reference's quirk: it can
   displace lines but no access ever hits it).  Used by the miss
   classifier (missclass.h); fn NULL (the default) turns it off. */
enum { CS_LL_DEMAND = 0, CS_LL_PREFETCH = 1, CS_LL_PREFETCH_BLIND = 2,
       CS_L2_DEMAND = 3, CS_L2_PREFETCH = 4 };
/* With an L2 (cs_set_l2) the observer is told of its lookups too, in
   order, with CS_L2_DEMAND (after an L1 miss, and the write-through of a
   D1 write hit with write-back) or CS_L2_PREFETCH (the stream
   prefetcher's fills); line is then the address divided by the L2's line
   size. */
typedef void (*cs_ll_observer)(void *ctx, uint64_t line, int kind);
void cs_set_ll_observer(cs_sim *, cs_ll_observer fn, void *ctx);

/* ---- D1 victim observer ------------------------------------------------ */

/* Every line D1 drops to make room for a missing one (the miss's victim;
   not an empty way), with its line number (address / D1 line size), as
   it happens.  Invalidations (cs_d1_invalidate), flush and clear are not
   reported.  For the write-backs of the bandwidth model (--bandwidth,
   which keeps the dirty D1 lines itself).  Cores made by cs_new_core
   afterwards get the same observer.  fn NULL (the default) turns it off:
   then a miss costs one test more. */
typedef void (*cs_victim_observer)(void *ctx, uint64_t line);
void cs_set_d1_victim_observer(cs_sim *, cs_victim_observer fn, void *ctx);

#include "cachesim_inline.h"

#endif /* CACHESIM_H */
