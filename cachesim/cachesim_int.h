/*
** cachesim_int.h -- what the files of the cache model share among
** themselves (cachesim.c, l2.c, streampf.c): lookups and cache set-up.
** Not part of the API (cachesim.h).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef CACHESIM_INT_H
#define CACHESIM_INT_H

#include "cachesim.h"

enum { HIT = 0, MISS = 1, MISS_DIRTY = 2 };

/* A merge of an L1 (or L2) victim's use into LL, deferred (cachesim.c:
   DEFERRED MERGE): into LL entry slot, when pending. */
typedef struct cs_merge { uint32_t slot, count, mask, pending; } cs_merge;

/* cachesim.c: plain lookups (tags are line numbers), the write-back LL
   lookup, the hardware prefetcher of the reference, set-up. */
int  cs__plain_ref(cs_cache *c, uint64_t a, unsigned size);
int  cs__wb_ref(cs_cache *c, uint64_t a, unsigned size, int is_write);
void cs__hw_prefetch(cs_sim *s, uint64_t a, const cs_owner *owner);
void cs__probe_update(cs_sim *s);   /* after any change of what it tests */
void cs__init_plain_cache(cs_cache *c, const cs_geometry *g);
void cs__free_cache(cs_cache *c);
void cs__empty_cache(cs_cache *c, int use);
void cs__too_wide(void) __attribute__((noreturn));
/* Tells the observer (cs_set_ll_observer) about the lines of [a,
   a+size-1] the lookup about to be made in LL (or L2, kind CS_L2_*) will
   look at.  The test is inline: every L1 miss passes here, and mostly
   there is no observer. */
void cs__observe_now(cs_sim *s, uint64_t a, unsigned size, int kind);
static inline void cs__observe(cs_sim *s, uint64_t a, unsigned size, int kind)
{
   if (s->ll_obs)
      cs__observe_now(s, a, size, kind);
}
/* cache use (cachesim.c) */
void cs__init_cache(cs_cache *c, const cs_geometry *g, int use,
                    int addr_tags, int with_dirty, int owner_ext);
uint32_t cs__spatial_loss(const cs_cache *c, uint32_t mask);
void cs__load_line(cs_sim *s, cs_cache *c, int level, uint32_t slot,
                   uint32_t count, uint32_t mask, const cs_owner *owner);
unsigned cs__use_ll_ref(cs_sim *s, uint64_t memline, uint32_t *link,
                        const cs_owner *owner, int is_write);
void cs__drop_owners(cs_sim *s, cs_cache *c, int level);
/* An owned line of c (at level) leaves: metrics to its owner and,
   while collecting, its use merged into the slot of `below` (the next
   level; 0 for LL) it was linked to. */
void cs__evict_line(cs_sim *s, int level, cs_cache *c, uint32_t slot,
                    cs_cache *below);
void cs__evict_l1(cs_sim *s, cs_cache *c, uint32_t slot);
void cs__forget_in(cs_cache *c, int level,
                   int (*forget)(void *, int, const cs_owner *), void *ctx);

/* l2.c: an access when an L2 or the stream prefetcher is on, and the
   levels below L1 for a demand access or a prefetch (result bits
   CS_L2_MISS, CS_LL_MISS, CS_LL_DIRTY_MISS). */
unsigned cs__access_ext(cs_sim *s, cs_cache *l1, uint64_t a, unsigned size,
                        int is_write);
unsigned cs__below_l1(cs_sim *s, uint64_t a, unsigned size, int is_write);
/* With cache use: one line looked up in L2 (and on a miss in LL); link
   (if not NULL) receives the L2 slot the L1 line merges into. */
unsigned cs__use_l2_ref(cs_sim *s, uint64_t memline, uint32_t *link,
                        const cs_owner *owner, int is_write);
/* The L2's lines leave (with cache use: reported, merged into LL) and it
   is empty afterwards. */
void cs__flush_l2(cs_sim *s);

/* streampf.c */
struct cs_spf *cs__spf_new(int distance);
void cs__spf_delete(struct cs_spf *);
int  cs__spf_distance(const struct cs_spf *);
void cs__spf_reset(struct cs_spf *);
/* D1 lookup of the access [a, a+size-1] when the prefetcher is on: HIT or
   MISS of the access as cs__plain_ref would say it, and the lines the
   detector must see (missed, or prefetched and now used for the first
   time) in order, in lines[0..*n-1]. */
int  cs__spf_d1_ref(cs_sim *s, uint64_t a, unsigned size, uint64_t lines[2],
                    int *n);
/* The detector sees one line; returns CS_PF_ISSUED if a line was loaded
   (owner: the triggering access's, read with cache use only). */
unsigned cs__spf_observe(cs_sim *s, uint64_t line, const cs_owner *owner);
/* A D1 access with cache use and the prefetcher. */
unsigned cs__spf_use_access(cs_sim *s, uint64_t a, unsigned size,
                            const cs_owner *owner, int is_write);
/* Line i of c, loaded by the prefetcher, leaves (cache use): counted used
   or unused, and the hook told. */
void cs__spf_line_leaves(cs_sim *s, cs_cache *c, uint32_t i);
/* Prefetched lines still unused in D1 leave (before D1 is emptied). */
void cs__spf_drop_d1(cs_sim *s);

#endif /* CACHESIM_INT_H */
