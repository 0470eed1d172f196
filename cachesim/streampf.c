/*
** streampf.c -- the stream prefetcher of the thesis (section 3.4.1),
** --prefetch=stream[:<distance>].
**
** The model's rules:
**  - It watches D1 only, and only the lines that would have missed
**    without it: D1 misses, and the first demand access to a line it
**    prefetched (a "prefetch hit": the access hits, but the detector sees
**    it as the next access into the stream, otherwise a stream could
**    never go on once its lines hit).  Line numbers are D1 line numbers.
**  - Per 4 KiB page it remembers the last line seen, a direction (up,
**    down or none) and how many consecutive lines in that direction end
**    there.  A line seen again changes nothing; a step of +1 or -1 line in
**    the same direction lengthens the run, in the other direction starts a
**    run of 2; anything else starts over (run of 1, no direction).
**    CS_SPF_PAGES pages are followed at once, direct mapped by page
**    number: a page that takes another's entry starts with nothing known.
**  - From a run of 3 on (three consecutive lines up or down), each line
**    seen prefetches the line <distance> lines further in the run's
**    direction -- unless that line is in another page: a stream never
**    crosses a 4 KiB page boundary (the thesis: no TLB lookup).
**  - A prefetch is available at once: the line is loaded into D1 as the
**    most recently used line of its set, and looked up in the levels
**    below (L2, LL) as a demand read would be; nothing of it counts as a
**    miss of the access.  A prefetch of a line D1 holds does nothing and
**    is not counted.
**  - A prefetched line carries a mark (PF_MARK in its tag) until its
**    first demand access (counted used) or until it leaves D1 (counted
**    unused).  A marked tag never matches the inline MRU test, so that
**    first access always reaches this file.
**  - cs_clear forgets every page; lines still marked then count unused.
**  - Cache use: a prefetched line is loaded into D1 like a missed line
**    (the LRU way's line is evicted and reported), but with count 0, no
**    bits and the triggering access as its owner, and linked to its line
**    in the level below, where the lookup loads it owned by that access
**    too.  It keeps CS_OWNED_PREFETCH while in D1; when it leaves
**    (eviction, flush, clear) it counts used if any access touched it
**    (count > 0), else unused, and on_prefetch_end says which; an unused
**    one reports AcCost 0 and SpLoss = the line size (all bytes loaded
**    for nothing).  Marks and use data: the first access to a marked line
**    clears the mark and counts like any hit.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "cachesim_int.h"

#define CS_SPF_PAGES 64
#define PAGE_BITS    12
/* Plain tags are line numbers, below 2^58 with lines of 64 bytes or more
   and below 2^60 with 16-byte lines: the top bit is free. */
#define PF_MARK      ((uint64_t)1 << 63)

typedef struct {
   uint64_t page, last;    /* page number, last line seen */
   int      dir, run;      /* +1 / -1 / 0, consecutive lines ending at last */
   int      valid;
} spf_page;

struct cs_spf {
   int      distance;
   spf_page page[CS_SPF_PAGES];
   cs_spf_counts n;
};

struct cs_spf *cs__spf_new(int distance)
{
   struct cs_spf *p = cs_alloc(sizeof(struct cs_spf));
   p->distance = distance;
   return p;
}

void cs__spf_delete(struct cs_spf *p)
{
   cs_free(p);
}

int cs__spf_distance(const struct cs_spf *p)
{
   return p->distance;
}

void cs__spf_reset(struct cs_spf *p)
{
   int i;
   for (i = 0; i < CS_SPF_PAGES; i++)
      p->page[i].valid = 0;
}

void cs_set_stream_prefetch(cs_sim *s, int distance)
{
   if (s->hwpref)
      cs_fail("cachesim: the stream prefetcher is not combined with the"
              " reference's prefetcher");
   if (distance < 1)
      cs_fail("cachesim: prefetch distance must be at least 1");
   if (s->spf)
      cs_fail("cachesim: the stream prefetcher is set once");
   s->spf = cs__spf_new(distance);
   s->ext = 1;
   cs__probe_update(s);
}

void cs_stream_prefetch_counts(const cs_sim *s, cs_spf_counts *out)
{
   static const cs_spf_counts none;
   *out = s->spf ? s->spf->n : none;
}

static int is_marked(const cs_cache *c, uint64_t tag)
{
   return tag != c->no_line && (tag & PF_MARK);
}

/* Moves way i of set to the front with tag. */
static void to_front(uint64_t *set, int i, uint64_t tag)
{
   for (; i > 0; i--)
      set[i] = set[i - 1];
   set[0] = tag;
}

static uint64_t *set_of_line(const cs_cache *c, uint64_t line)
{
   return &c->tags[(line & c->sets_mask) * (uint64_t)c->assoc];
}

static int find_line(const cs_cache *c, const uint64_t *set, uint64_t line)
{
   int i;
   for (i = 0; i < c->assoc; i++)
      if ((set[i] & ~PF_MARK) == line && set[i] != c->no_line)
         return i;
   return -1;
}

/* Inserts tag at the front, dropping the LRU way (counted unused if it
   was a prefetched line never used). */
static void insert(cs_sim *s, uint64_t *set, uint64_t tag)
{
   cs_cache *c = &s->d1;
   if (is_marked(c, set[c->assoc - 1]))
      s->spf->n.unused++;
   to_front(set, c->assoc - 1, tag);
}

enum { SEEN_NOT = 0, SEEN = 1 };

/* One line of a D1 access: HIT or MISS; *seen when the detector must see
   it (a miss, or the first use of a prefetched line). */
static int d1_line_ref(cs_sim *s, uint64_t line, int *seen)
{
   cs_cache *c = &s->d1;
   uint64_t *set = set_of_line(c, line);
   int i = find_line(c, set, line);

   if (i < 0) {
      insert(s, set, line);
      *seen = SEEN;
      return MISS;
   }
   *seen = (set[i] & PF_MARK) ? SEEN : SEEN_NOT;
   if (*seen)
      s->spf->n.used++;
   to_front(set, i, line);
   return HIT;
}

int cs__spf_d1_ref(cs_sim *s, uint64_t a, unsigned size, uint64_t lines[2],
                   int *n)
{
   cs_cache *c = &s->d1;
   uint64_t line1 = a >> c->line_bits, line2 = (a + size - 1) >> c->line_bits;
   int seen, r;

   *n = 0;
   r = d1_line_ref(s, line1, &seen);
   if (seen)
      lines[(*n)++] = line1;
   if (line2 == line1)
      return r;
   if (line1 + 1 != line2)
      cs__too_wide();
   if (d1_line_ref(s, line2, &seen) == MISS)
      r = MISS;
   if (seen)
      lines[(*n)++] = line2;
   return r;
}

/* Loads line into D1 (marked) and the levels below, unless D1 has it. */
static unsigned prefetch_line(cs_sim *s, uint64_t line)
{
   cs_cache *c = &s->d1;
   uint64_t *set = set_of_line(c, line);

   if (find_line(c, set, line) >= 0)
      return 0;
   insert(s, set, line | PF_MARK);
   s->spf->n.issued++;
   cs__below_l1(s, line << c->line_bits, 1, 0);
   return CS_PF_ISSUED;
}

static int page_shift(const cs_cache *c)
{
   return c->line_bits < PAGE_BITS ? PAGE_BITS - c->line_bits : 0;
}

/* The page's run after seeing line. */
static void extend_run(spf_page *p, uint64_t line)
{
   int step = line == p->last + 1 ? 1 : line + 1 == p->last ? -1 : 0;

   if (step == 0) {
      p->dir = 0;
      p->run = 1;
   } else if (step == p->dir) {
      p->run++;
   } else {
      p->dir = step;
      p->run = 2;
   }
   p->last = line;
}

static unsigned prefetch_use(cs_sim *s, uint64_t line, const cs_owner *owner);

unsigned cs__spf_observe(cs_sim *s, uint64_t line, const cs_owner *owner)
{
   struct cs_spf *pf = s->spf;
   int shift = page_shift(&s->d1);
   uint64_t page = line >> shift, target;
   spf_page *p = &pf->page[page % CS_SPF_PAGES];

   if (!p->valid || p->page != page) {
      p->valid = 1;
      p->page = page;
      p->last = line;
      p->dir = 0;
      p->run = 1;
      return 0;
   }
   if (line == p->last)
      return 0;
   extend_run(p, line);
   if (p->run < 3)
      return 0;
   if (p->dir > 0)
      target = line + (uint64_t)pf->distance;
   else if (line >= (uint64_t)pf->distance)
      target = line - (uint64_t)pf->distance;
   else
      return 0;
   if (target >> shift != page)
      return 0;
   return s->use ? prefetch_use(s, target, owner) : prefetch_line(s, target);
}

void cs__spf_drop_d1(cs_sim *s)
{
   cs_cache *c = &s->d1;
   unsigned i, n = c->slots;

   if (s->use)          /* counted as they leave: cs__spf_line_leaves */
      return;
   for (i = 0; i < n; i++)
      if (is_marked(c, c->tags[i]))
         s->spf->n.unused++;
}

/* ------------------------------------------------------------------------
** Cache use: tags are address bits with the way's slot number below;
** the mark is the top bit, as in the plain model.
*/

static int use_is_marked(const cs_cache *c, uint64_t e)
{
   return (e & PF_MARK) && (e & c->tag_mask) != c->no_line;
}

/* Finds tag in set set_no ignoring the mark, or takes the LRU way; moves
   it to the front (unmarked, or marked if mark) and returns its slot.
   *hit, and *was_marked for a hit. */
static uint32_t use_ref(cs_cache *c, uint32_t set_no, uint64_t tag,
                        uint64_t mark, int *hit, int *was_marked)
{
   uint64_t *set = &c->tags[set_no * (uint64_t)c->assoc];
   uint64_t e;
   int i;

   for (i = 0; i < c->assoc; i++)
      if ((set[i] & c->tag_mask & ~PF_MARK) == tag
          && (set[i] & c->tag_mask) != c->no_line)
         break;
   *hit = i < c->assoc;
   if (!*hit)
      i = c->assoc - 1;
   e = set[i];
   *was_marked = *hit && use_is_marked(c, e);
   to_front(set, i, tag | mark | (e & ~c->tag_mask));
   return set_no * (uint32_t)c->assoc + (uint32_t)(e & ~c->tag_mask);
}

/* The line's lookup below D1 (L2 or LL); link receives the slot there. */
static unsigned use_below(cs_sim *s, uint64_t memline, uint32_t *link,
                          const cs_owner *owner, int is_write)
{
   if (s->has_l2)
      return cs__use_l2_ref(s, memline, link, owner, is_write);
   cs__observe(s, memline, 1, CS_LL_DEMAND);
   return cs__use_ll_ref(s, memline, link, owner, is_write);
}

static unsigned use_line(cs_sim *s, uint64_t line, uint32_t bits,
                         const cs_owner *owner, int is_write, uint64_t *seen,
                         int *n)
{
   cs_cache *c = &s->d1;
   uint64_t memline = line << c->line_bits;
   int hit, was_marked;
   uint32_t slot = use_ref(c, (uint32_t)line & c->sets_mask,
                           memline & c->tag_mask, 0, &hit, &was_marked);

   if (hit) {
      cs__use_add(cs__use(c, slot), 1, bits);
      if (was_marked)
         seen[(*n)++] = line;
      if (s->wb && is_write)     /* write-through, as use_l1_line */
         use_below(s, memline, 0, owner, 1);
      return 0;
   }
   cs__evict_l1(s, c, slot);
   cs__load_line(s, c, 1, slot, 1, bits, owner);
   seen[(*n)++] = line;
   return CS_L1_MISS | use_below(s, memline, &c->line[slot].ll_slot, owner,
                                 is_write);
}

unsigned cs__spf_use_access(cs_sim *s, uint64_t a, unsigned size,
                            const cs_owner *owner, int is_write)
{
   cs_cache *c = &s->d1;
   uint64_t end = a + size - 1;
   uint64_t line1 = a >> c->line_bits, line2 = end >> c->line_bits;
   uint32_t first = c->first_bits[a & c->line_mask];
   uint32_t last = c->last_bits[end & c->line_mask];
   uint64_t seen[2];
   int n = 0, i;
   unsigned r;

   if (line1 == line2) {
      r = use_line(s, line1, first & last, owner, is_write, seen, &n);
   } else {
      if (line1 + 1 != line2)
         cs__too_wide();
      r = use_line(s, line1, first, owner, is_write, seen, &n);
      r |= use_line(s, line2, last, owner, is_write, seen, &n);
   }
   for (i = 0; i < n; i++)
      r |= cs__spf_observe(s, seen[i], owner);
   return r;
}

/* Cache use: the prefetch of line, owned by the triggering access. */
static unsigned prefetch_use(cs_sim *s, uint64_t line, const cs_owner *owner)
{
   cs_cache *c = &s->d1;
   uint64_t memline = line << c->line_bits;
   uint64_t *set = set_of_line(c, line);
   int hit, was_marked, i;
   uint32_t slot;

   for (i = 0; i < c->assoc; i++)
      if ((set[i] & c->tag_mask & ~PF_MARK) == (memline & c->tag_mask))
         return 0;
   slot = use_ref(c, (uint32_t)line & c->sets_mask, memline & c->tag_mask,
                  PF_MARK, &hit, &was_marked);
   cs__evict_l1(s, c, slot);
   cs__load_line(s, c, 1, slot, 0, 0, owner);
   c->line[slot].owned |= CS_OWNED_PREFETCH;
   s->spf->n.issued++;
   use_below(s, memline, &c->line[slot].ll_slot, owner, 0);
   return CS_PF_ISSUED;
}

void cs__spf_line_leaves(cs_sim *s, cs_cache *c, uint32_t i)
{
   cs_owner o;
   int used = cs__use(c, i)->count > 0;

   if (used)
      s->spf->n.used++;
   else
      s->spf->n.unused++;
   if (s->hooks.on_prefetch_end) {
      o.slot = c->line[i].owner.slot;
      o.node = c->line[i].owner.node;
      o.obj = c->ext ? c->ext[i].obj : 0;
      o.obj_off = c->ext ? c->ext[i].obj_off : 0;
      s->hooks.on_prefetch_end(s->hooks.ctx, &o, used);
   }
}
