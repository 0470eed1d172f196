/*
** cachesim_inline.h -- the simulator's state and its hot path.
**
** Included by cachesim.h only.  The structs are here (not in cachesim.c)
** so the L1 hit on the most-recently-used way can be done inline in the
** caller: that is the case for almost every access, and it costs a shift,
** a compare and a load.  With cacheuse the search of the set's other ways
** is here too (cs_l1_probe), for the next most frequent case.  Everything
** else goes to cachesim.c.  Callers must treat the structs as private.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef CACHESIM_INLINE_H
#define CACHESIM_INLINE_H

/* Use data of one line (cacheuse only).  The mask first: on a little-
   endian host the pair is one 64-bit word whose count an access adds to
   in the top half (cs__use_add), so a count that wraps wraps alone. */
typedef struct {
   uint32_t mask;    /* bytes touched, line_size/32 bytes per bit */
   uint32_t count;   /* accesses while in this cache (L1: from 1; LL: merged) */
} cs_use;

/* One line's use data and who loaded it (cacheuse only).  32 bytes,
   32-byte aligned: an LL eviction reads use, owner and flag from one host
   cache line (the LL arrays are megabytes, so each touch is a host miss).
   An L1 line's use is not here but in an array of its own (cs_cache.use),
   8 bytes a slot, that the host keeps in its cache: an MRU hit updates it.
   The data objects' part of the owner, when kept, is in cs_cache.ext. */
typedef struct {
   cs_use   use;     /* LL, L2 (see cs__use) */
   struct { void *slot, *node; } owner;   /* cs_owner's first two fields */
   uint32_t ll_slot; /* L1 only: LL slot the line was linked to at load */
   uint32_t owned;   /* loaded by an access since the last flush/clear
                        (CS_OWNED), and by the stream prefetcher
                        (| CS_OWNED_PREFETCH: streampf.c) */
} cs_line;

enum { CS_OWNED = 1, CS_OWNED_PREFETCH = 2 };

/* The rest of a line's owner (cs_options.owner_ext). */
typedef struct { void *obj; uint32_t obj_off; } cs_owner_ext;

/* One cache.  tags[set * assoc + i] is the i-th most recently used way of
   a set.  What a tag holds depends on the mode (see cachesim.c): a line
   number, or the address's tag bits with a dirty flag or a slot number in
   the low bits. */
typedef struct {
   uint64_t *tags;
   uint64_t  tag_mask;     /* address bits that form the tag (wb/cacheuse) */
   uint64_t  no_line;      /* the tag of an empty way (without slot bits) */
   uint32_t  sets_mask;    /* sets - 1 */
   uint32_t  line_mask;    /* line_size - 1 */
   int       assoc, line_bits, line_size, size, sets;
   uint32_t  slots;        /* sets * assoc */
   /* cacheuse only */
   cs_line  *line;         /* per slot (set * assoc + way number) */
   cs_use   *use;          /* slot's use at use[slot << use_shift] (cs__use):
                              an L1's own array (shift 0), else line[]'s */
   int       use_shift;
   cs_use   *use_mem;      /* an L1's use array, else NULL */
   void     *line_mem;     /* line's allocation (line is aligned in it) */
   cs_owner_ext *ext;      /* per slot, or NULL: see cs_options.owner_ext */
   uint32_t *first_bits;   /* [offset]: mask bits from offset to line end */
   uint32_t *last_bits;    /* [offset]: mask bits from line start to offset */
   uint8_t  *dirty;        /* per slot; LL with cacheuse + write-back only */
   struct cs_merge *merge; /* LL with cacheuse: the use an L1 victim merges
                              in, not added yet (cachesim.c); shared by
                              the cores, as the arrays are */
   void    (*victim_obs)(void *ctx, uint64_t line);   /* D1 only */
   void     *victim_ctx;
} cs_cache;

#define CS_PF_STREAMS 8
#define CS_FILL_RING  4            /* fill_pending_for compares all four */
#define CS_NO_FILL    0xffffffffu

struct cs_sim {
   cs_cache i1, d1, ll;
   int      use, wb, hwpref;
   int      probe_ok;      /* cs_l1_probe applies (cs__probe_update) */
   int      common_miss;   /* an L1 miss may take common_l1_miss (cachesim.c) */
   int      collect;
   cs_hooks hooks;
   int      charging;      /* cs_set_charging: charge instead of the hooks */
   cs_charging charge;
   /* hardware prefetcher: one sequence detector per stream */
   uint32_t pf_last[CS_PF_STREAMS];
   int32_t  pf_seq[CS_PF_STREAMS];
   uint64_t pf_up, pf_down;
   int      pf_pending;    /* cacheuse: prefetch at the access's 1st L1 miss */
   uint64_t pf_addr;
   cs_ll_observer ll_obs;  /* cs_set_ll_observer */
   void    *ll_obs_ctx;
   /* a third level and the stream prefetcher: any of them on sends every
      access that is not an MRU hit through cs__access_ext (l2.c) */
   int      ext;           /* has_l2 || spf */
   int      has_l2;        /* cs_set_l2 */
   cs_cache l2;
   struct cs_spf *spf;     /* cs_set_stream_prefetch, else NULL */
   /* the late LL fill (cs_set_late_ll_fill): fill_pending LL misses'
      evictions and loads not made yet (1 at most with the hooks), a ring
      whose oldest is at fill_first: the LL slots (CS_NO_FILL where none)
      and the new lines' owners */
   int      late_fill, fill_pending, fill_first;
   uint32_t fill_slot[CS_FILL_RING];
   cs_owner fill_owner[CS_FILL_RING];
};

void cs__fill_now(cs_sim *s);

/* The use of slot's line. */
static inline cs_use *cs__use(const cs_cache *c, uint32_t slot)
{
   return &c->use[(uintptr_t)slot << c->use_shift];
}

/* The same for an L1 (use_shift 0), where the hot paths below need it:
   the shift's count, one more load the address waits for, cost the MRU
   hit 2% (matmul-ijk, perl). */
static inline cs_use *cs__l1_use(const cs_cache *c, uint64_t slot)
{
   return &c->use[slot];
}

/* n accesses to a line that touch the bytes of bits.  One 64-bit read-
   modify-write where the host is little-endian (the tool's): the count is
   the top half, so a wrap does not carry into the mask. */
static inline void cs__use_add(cs_use *u, uint32_t n, uint32_t bits)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
   uint64_t v;
   __builtin_memcpy(&v, u, sizeof v);
   v = (v + ((uint64_t)n << 32)) | bits;
   __builtin_memcpy(u, &v, sizeof v);
#else
   u->count += n;
   u->mask |= bits;
#endif
}

/* The use-mask bits of the bytes [a, end], which lie in one line of c. */
static inline uint32_t cs__span_bits(const cs_cache *c, uint64_t a,
                                     uint64_t end)
{
   return c->first_bits[a & c->line_mask] & c->last_bits[end & c->line_mask];
}

/* Tells the D1 victim observer of the line (tag bits) leaving set_no. */
void cs__tell_victim(cs_cache *c, uint32_t set_no, uint64_t tag);

/* Finds tag (address bits, cacheuse) in set set_no, or takes the LRU way
   on a miss; moves it to the front and returns its slot; *hit tells
   which.  Each way takes the one before it until the tag is found, so
   search and LRU update are one pass.  Here rather than in cachesim.c
   because the probe below, inline in the tool's miss path, makes it too.
   With tell, a miss tells c's victim observer, if any (cs__set_search);
   the probe, which does not apply where there is one, searches without
   that call, so that its caller's hit path calls nothing and needs no
   stack frame. */
static inline __attribute__((always_inline))
uint32_t cs__set_search_tell(cs_cache *c, uint32_t set_no, uint64_t tag,
                             int *hit, int tell)
{
   /* Locals, not c's fields: the shifting stores are uint64_t, as
      tag_mask is, so the compiler would load the fields again each way. */
   const uint64_t tag_mask = c->tag_mask;
   const int assoc = c->assoc;
   const uint32_t first_slot = set_no * (uint32_t)assoc;
   uint64_t *set = &c->tags[first_slot];
   uint64_t carry = set[0], e;
   int i;

   *hit = 1;
   if ((carry & tag_mask) == tag)
      return first_slot + (uint32_t)(carry & ~tag_mask);
   for (i = 1; i < assoc; i++) {
      e = set[i];
      set[i] = carry;
      if ((e & tag_mask) == tag) {
         set[0] = e;
         return first_slot + (uint32_t)(e & ~tag_mask);
      }
      carry = e;
   }
   *hit = 0;
   set[0] = tag | (carry & ~tag_mask);
   if (tell && c->victim_obs)
      cs__tell_victim(c, set_no, carry & tag_mask);
   return first_slot + (uint32_t)(carry & ~tag_mask);
}

static inline __attribute__((always_inline))
uint32_t cs__set_search(cs_cache *c, uint32_t set_no, uint64_t tag, int *hit)
{
   return cs__set_search_tell(c, set_no, tag, hit, 1);
}

/* Complete the late LL fills (see cs_set_late_ll_fill). */
static inline void cs_settle(cs_sim *s)
{
   if (s->fill_pending)
      cs__fill_now(s);
}

/* Before the tool builds an owner (its tree may grow): complete the late
   fills where the hooks would see them; with charging they wait (see
   cs_set_late_ll_fill). */
static inline void cs_settle_hooks(cs_sim *s)
{
   if (s->fill_pending && !s->charging)
      cs__fill_now(s);
}

/* The slow path: everything but an MRU hit. */
unsigned cs__access(cs_sim *s, cs_cache *l1, uint64_t a, unsigned size,
                    const cs_owner *owner, int is_write);

/* MRU hit when tags are line numbers (all modes without cacheuse).  The
   MRU way is tested first because consecutive accesses mostly fall into
   the same line; a hit there changes no state at all. */
static inline int cs__mru_hit(const cs_cache *c, uint64_t a, unsigned size)
{
   uint64_t line = a >> c->line_bits;
   return line == ((a + size - 1) >> c->line_bits)
             && c->tags[(line & c->sets_mask) * (uint64_t)c->assoc] == line;
}

/* MRU hit with cacheuse: also count the access and mark the bytes used.
   A straddling access always takes the slow path. */
static inline int cs__mru_hit_use(cs_cache *c, uint64_t a, unsigned size)
{
   uint32_t first = (uint32_t)a & c->line_mask;
   uint32_t last  = first + size - 1;
   uint64_t slot0, e;
   cs_use *u;

   if (last > c->line_mask)
      return 0;
   slot0 = ((a >> c->line_bits) & c->sets_mask) * (uint64_t)c->assoc;
   e = c->tags[slot0];
   if ((e & c->tag_mask) != (a & c->tag_mask))
      return 0;
   u = cs__l1_use(c, slot0 + (e & ~c->tag_mask));
   cs__use_add(u, 1, c->first_bits[first] & c->last_bits[last]);
   return 1;
}

static inline int cs__l1_mru_hit(cs_sim *s, cs_cache *c, uint64_t a,
                                 unsigned size)
{
   return s->use ? cs__mru_hit_use(c, a, size) : cs__mru_hit(c, a, size);
}

/* Both lines of a crossing fetch: each the MRU way of its set (slot1,
   slot2 its first slots; key1, key2 its tag bits with cacheuse, else
   its line number), and with cacheuse counted and marked (bits1,
   bits2).  This test and its planned twin share it. */
static inline int cs__both_mru(cs_cache *c, uint32_t slot1, uint64_t key1,
                               uint32_t bits1, uint32_t slot2, uint64_t key2,
                               uint32_t bits2, int use)
{
   uint64_t e1 = c->tags[slot1], e2 = c->tags[slot2];
   cs_use *u1, *u2;

   if (!use)
      return e1 == key1 && e2 == key2;
   if ((e1 & c->tag_mask) != key1 || (e2 & c->tag_mask) != key2)
      return 0;
   u1 = cs__l1_use(c, slot1 + (e1 & ~c->tag_mask));
   u2 = cs__l1_use(c, slot2 + (e2 & ~c->tag_mask));
   cs__use_add(u1, 1, bits1);
   cs__use_add(u2, 1, bits2);
   return 1;
}

/* A fetch crossing into the next line hits when both lines are the MRU
   ways of their sets: nothing moves, and with cacheuse each line is
   counted and marked (the first from the fetch's start, the second up to
   its end), as the slow path does line by line.  An instruction that
   crosses a line boundary in a hot loop would otherwise take the slow
   path at every run: they are most of the I1 lookups that are no MRU hit
   (all of matmul-ijk's, nine in ten of gzip's).  Data accesses rarely
   straddle, so only fetches have this case; I1 has no prefetcher or
   write-through that a hit would have to tell.  0 for a fetch inside
   one line (cs__l1_mru_hit's case). */
static inline int cs__i1_straddle_hit(cs_sim *s, uint64_t a, unsigned size)
{
   cs_cache *c = &s->i1;
   uint64_t end = a + size - 1;
   uint64_t line1 = a >> c->line_bits, line2 = end >> c->line_bits;

   if (line2 != line1 + 1)
      return 0;
   return cs__both_mru(c, (uint32_t)((line1 & c->sets_mask) * (uint64_t)c->assoc),
                       s->use ? a & c->tag_mask : line1,
                       s->use ? c->first_bits[a & c->line_mask] : 0,
                       (uint32_t)((line2 & c->sets_mask) * (uint64_t)c->assoc),
                       s->use ? end & c->tag_mask : line2,
                       s->use ? c->last_bits[end & c->line_mask] : 0, s->use);
}

/* The I1 MRU hit, straddling fetches included. */
static inline int cs__i1_mru_hit(cs_sim *s, uint64_t a, unsigned size)
{
   return cs__l1_mru_hit(s, &s->i1, a, size) || cs__i1_straddle_hit(s, a, size);
}

static inline unsigned cs_instr(cs_sim *s, uint64_t a, unsigned size,
                                const cs_owner *owner)
{
   if (cs__i1_mru_hit(s, a, size))
      return 0;
   return cs__access(s, &s->i1, a, size, owner, 0);
}

static inline unsigned cs_read(cs_sim *s, uint64_t a, unsigned size,
                               const cs_owner *owner)
{
   if (cs__l1_mru_hit(s, &s->d1, a, size))
      return 0;
   return cs__access(s, &s->d1, a, size, owner, 0);
}

/* With write-back a D1 hit still writes through to LL, so no shortcut. */
static inline unsigned cs_write(cs_sim *s, uint64_t a, unsigned size,
                                const cs_owner *owner)
{
   if (!s->wb && cs__l1_mru_hit(s, &s->d1, a, size))
      return 0;
   return cs__access(s, &s->d1, a, size, owner, 1);
}

/* Split form of the three accesses, for callers whose owner is costly to
   build (only a miss needs it): cs_X_hit() completes the access and
   returns 1 if it is an L1 MRU hit; otherwise the caller calls
   cs_X_miss() with the owner.  cs_read(s, a, n, o) is exactly
   cs_read_hit(s, a, n) ? 0 : cs_read_miss(s, a, n, o), and likewise. */
static inline int cs_instr_hit(cs_sim *s, uint64_t a, unsigned size)
{
   return cs__i1_mru_hit(s, a, size);
}

static inline int cs_read_hit(cs_sim *s, uint64_t a, unsigned size)
{
   return cs__l1_mru_hit(s, &s->d1, a, size);
}

static inline int cs_write_hit(cs_sim *s, uint64_t a, unsigned size)
{
   return !s->wb && cs__l1_mru_hit(s, &s->d1, a, size);
}

static inline unsigned cs_instr_miss(cs_sim *s, uint64_t a, unsigned size,
                                     const cs_owner *owner)
{
   return cs__access(s, &s->i1, a, size, owner, 0);
}

static inline unsigned cs_read_miss(cs_sim *s, uint64_t a, unsigned size,
                                    const cs_owner *owner)
{
   return cs__access(s, &s->d1, a, size, owner, 0);
}

static inline unsigned cs_write_miss(cs_sim *s, uint64_t a, unsigned size,
                                     const cs_owner *owner)
{
   return cs__access(s, &s->d1, a, size, owner, 1);
}

/* An L1 access that is no MRU hit, in two steps, so that a caller whose
   owner is costly builds it only for a miss (with cacheuse most such
   accesses hit another way of the set).  cs_l1_probe (instr: I1, else
   D1) looks the line up in the other ways; on a hit it completes the
   access and returns 1.  Otherwise it returns 0 and the caller completes
   the access with cs_l1_finish, next, with no other access of the
   simulator in between: together they are exactly cs_X_miss, i.e.
   cs_read_miss(s, a, n, o) is
   cs_l1_probe(s, &p, 0, a, n) ? 0 : cs_l1_finish(s, &p, a, n, o, 0).
   The probe searches only where the miss path can go on from its search
   (cacheuse, no write-back, no prefetcher, no L2, no D1 victim observer:
   s->probe_ok); elsewhere it returns 0 at once and cs_l1_finish makes the
   whole access.  An access crossing into the next line (an instruction
   at a line's end, mostly) is probed line by line, as the slow path
   takes it (cs__probe_straddle).  A probe that hits reads and changes
   nothing below L1: it does not settle. */
typedef struct {      /* 16 bytes: passed by value in two registers */
   cs_cache *l1;
   uint32_t  slot;     /* the set's victim way, now the line's; with a
                          straddling access, | CS_PROBE_SECOND when the
                          miss is its second line, | CS_PROBE_THEN_SECOND
                          when it is the first and the second is still
                          to be looked up */
   uint32_t  bits;     /* the missing line's use-mask bits; 0: not probed
                          (an access sets at least one), and cs_l1_finish
                          makes the whole access */
} cs_probe;

enum { CS_PROBE_SECOND = 1u << 31, CS_PROBE_THEN_SECOND = 1u << 30,
       CS_PROBE_HIT = 1u << 29 };

/* The probe of a straddling access, returned by value (a probe whose
   address escaped into a call would keep its caller from tail-calling
   the miss path): slot CS_PROBE_HIT when both lines hit. */
cs_probe cs__probe_straddle(cs_cache *c, uint64_t a, uint64_t end);

/* The probe's look-up of the line of address a, all in one line of c:
   on a hit the line gets the access's bits.  *slot: its way, or the
   victim's, now the line's. */
static inline __attribute__((always_inline))
int cs__probe_line(cs_cache *c, uint64_t a, uint32_t bits, uint32_t *slot)
{
   int hit;
   *slot = cs__set_search_tell(c, (uint32_t)(a >> c->line_bits) & c->sets_mask,
                               a & c->tag_mask, &hit, 0);
   if (hit) {
      cs__use_add(cs__l1_use(c, *slot), 1, bits);
   }
   return hit;
}

static inline __attribute__((always_inline))
int cs_l1_probe(cs_sim *s, cs_probe *p, int instr, uint64_t a, unsigned size)
{
   cs_cache *c = instr ? &s->i1 : &s->d1;
   uint64_t end = a + size - 1;

   p->l1 = c;
   p->bits = 0;
   if (!s->probe_ok)
      return 0;
   if ((a >> c->line_bits) != (end >> c->line_bits)) {
      *p = cs__probe_straddle(c, a, end);
      return p->slot == CS_PROBE_HIT;
   }
   p->bits = cs__span_bits(c, a, end);
   return cs__probe_line(c, a, p->bits, &p->slot);
}
unsigned cs_l1_finish(cs_sim *s, const cs_probe *p, uint64_t a,
                      unsigned size, const cs_owner *owner, int is_write);

/* Fetches known to be I1 MRU hits: n instructions occupying the bytes
   [a, end] of the line that the previous I1 access (cs_instr) touched last,
   with no I1 access in between -- nothing but fetches reaches I1, so the
   fetches after the first of a run of instructions within one line qualify.
   The effect is that of n cs_instr calls that hit: nothing without
   cacheuse; with it the line's count grows by n and its mask gets the
   bytes.  This lets the tool simulate such a run with one lookup. */
static inline void cs_instr_hits(cs_sim *s, uint64_t a, uint64_t end,
                                 unsigned n)
{
   cs_cache *c = &s->i1;
   uint64_t slot0, e;
   cs_use *u;

   if (!s->use)
      return;
   slot0 = ((a >> c->line_bits) & c->sets_mask) * (uint64_t)c->assoc;
   e = c->tags[slot0];
   u = cs__l1_use(c, slot0 + (e & ~c->tag_mask));
   cs__use_add(u, n, cs__span_bits(c, a, end));
}

/* A fetch group whose address is known before it runs (an instrumented
   block's: its instructions are contiguous and inside one I1 line, or it
   is one instruction crossing into the next line).  Its I1 set, its tag
   and the mask of the bytes it covers depend on the address only, so
   cs_plan_fetch works them out once, and at every run the MRU test is a
   load and a compare, and the use update one add and one OR for the
   whole group.  For a group crossing into the next line the plan is its
   first line's, and *second_bits (otherwise 0) the use-mask bits of its
   bytes in the second (without cacheuse 1), whose set follows: those
   fetches, at the end of a line in a loop, were a fifth of the replay's
   time on a matrix multiply, working both lines out at every run. */
typedef struct {
   uint64_t key;     /* the MRU way's tag bits (cacheuse) or line number */
   uint32_t slot0;   /* first slot of its set */
   uint32_t bits;    /* use-mask bits of its bytes in the (first) line */
} cs_fetch_plan;

void cs_plan_fetch(const cs_sim *s, uint64_t a, unsigned len,
                   cs_fetch_plan *p, uint32_t *second_bits);

/* The n fetches planned in p, when their line is the MRU way of its set:
   the effect of cs_instr for the first and cs_instr_hits for the others,
   and 1.  Otherwise nothing changes and 0: the caller then simulates the
   first with cs_instr_miss and the others with cs_instr_hits. */
static inline int cs__planned_hit(cs_cache *c, const cs_fetch_plan *p,
                                  unsigned n, int use)
{
   uint64_t e = c->tags[p->slot0];
   cs_use *u;

   if (!use)
      return e == p->key;
   if ((e & c->tag_mask) != p->key)
      return 0;
   u = cs__l1_use(c, p->slot0 + (e & ~c->tag_mask));
   cs__use_add(u, n, p->bits);
   return 1;
}

/* The planned fetch crossing into the next line: cs__i1_straddle_hit
   from the plan.  The second line's set is the next one (set 0 after
   the last, where its tag is one more). */
static inline int cs__planned_straddle_hit(cs_cache *c, const cs_fetch_plan *p,
                                           uint32_t second_bits, int use)
{
   uint32_t slot2 = p->slot0 + (uint32_t)c->assoc;
   uint64_t key2 = p->key + (use ? 0 : 1);

   if (slot2 == c->slots) {
      slot2 = 0;
      if (use)
         key2 += ~c->tag_mask + 1;
   }
   return cs__both_mru(c, p->slot0, p->key, p->bits, slot2, key2, second_bits, use);
}

/* cs_planned_fetch_hit with use given (a caller inlining it with a
   constant gets the code of one mode). */
static inline int cs__planned_fetch_hit(cs_cache *i1, const cs_fetch_plan *p,
                                        unsigned n, uint32_t second_bits, int use)
{
   return __builtin_expect(second_bits != 0, 0)
             ? cs__planned_straddle_hit(i1, p, second_bits, use)
             : cs__planned_hit(i1, p, n, use);
}

static inline int cs_planned_fetch_hit(cs_sim *s, const cs_fetch_plan *p,
                                       unsigned n, uint32_t second_bits)
{
   return cs__planned_fetch_hit(&s->i1, p, n, second_bits, s->use);
}

#endif /* CACHESIM_INLINE_H */
