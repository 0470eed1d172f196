/*
** lrustack.c -- LRU stack of lines with distance buckets, kept as a
** timestamp ring (see lrustack.h for the model and the method).
**
** Invariants, with R the ring size and `now` the next time:
**  - the valid times are the `count` lines' last times, all in
**    [oldest, now), and now - oldest <= R, so no two share a ring slot;
**  - the line table gives exactly the lines in the stack a stamp (last
**    time + 1): the small form holds exactly them, the large one gives
**    every other line of its chunks stamp 0;
**  - for every full bucket j (count >= e[j+1]), tail[j] is the time of the
**    line at position e[j+1]-1.
** Positions grow towards older times, so a line at time t is in the first
** bucket j that is not full or whose tail[j] <= t.
**
** When the next time would land on the oldest line's slot, the valid
** entries move to a new ring, renumbered 0 .. count-1 (their stamps
** follow), of the same size or, if more than a quarter of it is valid,
** twice the size.  Either way at least 3/4 of the ring is free afterwards:
** the renumbering costs at most 1/3 stamp update per reference, and times
** stay below 8 * capacity.
*/
#include "lrustack.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */

#define MIN_RING 64
#define MIN_CHUNK_SLOTS 16
#define CHUNK_BITS 12
#define CHUNK_LINES (1u << CHUNK_BITS)

/* ---- line table: line -> stamp ------------------------------------------ */

static uint32_t chunk_home(const ls_stack *s, uint64_t key)
{
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & s->chunk_mask;
}

static ls_chunk *find_chunk(const ls_stack *s, uint64_t key)
{
  uint32_t i = chunk_home(s, key);

  while (s->chunk[i].key && s->chunk[i].key != key)
    i = (i + 1) & s->chunk_mask;
  return &s->chunk[i];
}

static void alloc_chunk_slots(ls_stack *s, uint32_t n)
{
  s->chunk_mask = n - 1;
  s->chunk = cs_alloc(sizeof(ls_chunk) * n);
}

static void grow_chunk_slots(ls_stack *s)
{
  ls_chunk *old = s->chunk;
  uint32_t i, old_n = s->chunk_mask + 1;

  alloc_chunk_slots(s, 2 * old_n);
  for (i = 0; i < old_n; i++)
    if (old[i].key)
      *find_chunk(s, old[i].key) = old[i];
  cs_free(old);
}

/* The stamps of a chunk, created (all 0: not in the stack) on first use. */
static uint32_t *chunk_stamps(ls_stack *s, uint64_t key)
{
  ls_chunk *c = find_chunk(s, key);
  uint32_t *stamp;

  if (c->key)
    return c->stamp;
  c->key = key;
  c->stamp = stamp = cs_alloc(sizeof(uint32_t) * CHUNK_LINES);
  if (++s->n_chunks * 2 > s->chunk_mask + 1)
    grow_chunk_slots(s);
  return stamp;
}

/* Where the line's stamp is kept (stable until ls_clear). */
static inline __attribute__((always_inline)) uint32_t *stamp_of(ls_stack *s, uint64_t line)
{
  uint64_t key = (line >> CHUNK_BITS) + 1;

  if (key != s->last_key) {
    s->last_stamp = chunk_stamps(s, key);
    s->last_key = key;
  }
  return &s->last_stamp[line & (CHUNK_LINES - 1)];
}

static void free_chunks(ls_stack *s)
{
  uint32_t i;

  for (i = 0; i <= s->chunk_mask; i++)
    if (s->chunk[i].key) {
      cs_free(s->chunk[i].stamp);
      s->chunk[i].key = 0;
    }
  s->n_chunks = 0;
  s->last_key = 0;
}

/* ---- small line table: open addressing, line -> stamp -------------- */

static uint32_t hslot_home(const ls_stack *s, uint64_t key)
{
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & s->hslot_mask;
}

/* The line's slot, or the empty slot where it would go. */
static inline ls_hslot *find_hslot(const ls_stack *s, uint64_t line)
{
  uint64_t key = line + 1;
  uint32_t i = hslot_home(s, key);

  while (s->hslot[i].key && s->hslot[i].key != key)
    i = (i + 1) & s->hslot_mask;
  return &s->hslot[i];
}

/* Linear probing deletion: later entries of the cluster whose home is not
   between the hole and themselves move back into the hole. */
static void remove_hslot(ls_stack *s, uint64_t line)
{
  uint32_t hole = (uint32_t)(find_hslot(s, line) - s->hslot), i = hole;

  for (;;) {
    uint32_t home;
    i = (i + 1) & s->hslot_mask;
    if (!s->hslot[i].key)
      break;
    home = hslot_home(s, s->hslot[i].key);
    if (((i - home) & s->hslot_mask) >= ((i - hole) & s->hslot_mask)) {
      s->hslot[hole] = s->hslot[i];
      hole = i;
    }
  }
  s->hslot[hole].key = 0;
}

/* ---- line table, either form --------------------------------------------- */

/* The stamp of a line in the stack (its storage is stable until the next
   insert_stamp or drop_stamp), or 0 if the line is not in the stack. */
static inline __attribute__((always_inline)) uint32_t *find_stamp(ls_stack *s, uint64_t line)
{
  ls_hslot *h;

  if (!s->small) {
    uint32_t *st = stamp_of(s, line);
    return *st ? st : 0;
  }
  h = find_hslot(s, line);
  return h->key ? &h->stamp : 0;
}

/* Storage for the stamp of a line not in the stack. */
static uint32_t *insert_stamp(ls_stack *s, uint64_t line)
{
  ls_hslot *h;

  if (!s->small)
    return stamp_of(s, line);
  h = find_hslot(s, line);
  h->key = line + 1;
  return &h->stamp;
}

/* The line leaves the stack. */
static void drop_stamp(ls_stack *s, uint64_t line)
{
  if (s->small)
    remove_hslot(s, line);
  else
    *stamp_of(s, line) = 0;
}

/* ---- ring: time -> line, valid bits ------------------------------------- */

static void alloc_ring(ls_stack *s, uint64_t n)
{
  s->ring_mask = n - 1;
  s->ring = cs_alloc(sizeof(uint64_t) * n);
  s->valid = cs_alloc(sizeof(uint64_t) * (n / 64));
}

static void free_ring(ls_stack *s)
{
  cs_free(s->ring);
  cs_free(s->valid);
}

static inline void set_valid(ls_stack *s, uint64_t t)
{
  uint64_t r = t & s->ring_mask;
  s->valid[r >> 6] |= 1ull << (r & 63);
}

static inline void clear_valid(ls_stack *s, uint64_t t)
{
  uint64_t r = t & s->ring_mask;
  s->valid[r >> 6] &= ~(1ull << (r & 63));
}

/* The first valid time after t; the caller knows there is one. */
static uint64_t next_valid(const ls_stack *s, uint64_t t)
{
  uint64_t u = t + 1;

  for (;;) {
    uint64_t r = u & s->ring_mask;
    uint64_t w = s->valid[r >> 6] >> (r & 63);
    if (w)
      return u + (uint64_t)__builtin_ctzll(w);
    u += 64 - (r & 63);
  }
}

/* Moves the valid entries, oldest first, to times 0 .. count-1 of a new
   ring of n slots; stamps and tails follow. */
static void rebuild_ring(ls_stack *s, uint64_t n)
{
  uint64_t *ring = s->ring, *valid = s->valid, mask = s->ring_mask;
  uint64_t t = s->oldest, nt = 0, end = s->now;
  int j = 0;

  while (j < s->n_buckets && s->count >= s->edge[j + 1])
    j++;                        /* full buckets: 0 .. j-1, tails old->new */
  j--;
  alloc_ring(s, n);
  while (t < end) {
    uint64_t r = t & mask, w = valid[r >> 6] >> (r & 63), line;
    if (!w) {
      t += 64 - (r & 63);
      continue;
    }
    t += (uint64_t)__builtin_ctzll(w);
    if (t >= end)
      break;
    line = ring[t & mask];
    *find_stamp(s, line) = (uint32_t)nt + 1;
    s->ring[nt] = line;
    set_valid(s, nt);
    if (j >= 0 && s->tail[j] == t)
      s->tail[j--] = nt;
    nt++;
    t++;
  }
  s->oldest = 0;
  s->now = nt;
  cs_free(ring);
  cs_free(valid);
}

/* Makes the slot of time `now` free (see the top of this file). */
static void make_room(ls_stack *s)
{
  uint64_t size = s->ring_mask + 1;

  if (s->count == 0 || s->now - s->oldest < size)
    return;
  rebuild_ring(s, (uint64_t)s->count * 4 > size ? size * 2 : size);
}

/* The line takes time `now` (its slot is free, see make_room). */
static inline __attribute__((always_inline)) void place(ls_stack *s, uint32_t *stamp, uint64_t line)
{
  uint64_t t = s->now++;

  s->ring[t & s->ring_mask] = line;
  set_valid(s, t);
  *stamp = (uint32_t)t + 1;
  s->mru_line = line;
}

/* ---- lifetime ------------------------------------------------------------ */

static void init_edges(ls_stack *s, int pow2_buckets)
{
  int k = 0;
  uint32_t e;

  s->edge[k++] = 0;
  if (pow2_buckets)
    for (e = 1; e < s->capacity && k < LS_MAX_BUCKETS; e *= 2)
      s->edge[k++] = e;
  s->edge[k] = s->capacity;
  s->n_buckets = k;
}

ls_stack *ls_new(uint32_t capacity, int pow2_buckets)
{
  return ls_new_form(capacity, pow2_buckets, LS_FORM_AUTO);
}

ls_stack *ls_new_form(uint32_t capacity, int pow2_buckets, int form)
{
  ls_stack *s = cs_alloc(sizeof(ls_stack));

  if (capacity == 0 || capacity > LS_MAX_CAPACITY)
    cs_fail("lrustack: capacity out of range (at most 2^27 lines)");
  s->capacity = capacity;
  init_edges(s, pow2_buckets);
  s->small = form == LS_FORM_AUTO ? capacity <= LS_SMALL
                                  : form == LS_FORM_HASH;
  if (s->small) {
    uint32_t n = 64;
    while (n < 2 * capacity)
      n *= 2;                   /* at most half full */
    s->hslot_mask = n - 1;
    s->hslot = cs_alloc(sizeof(ls_hslot) * n);
  }
  alloc_chunk_slots(s, MIN_CHUNK_SLOTS);
  alloc_ring(s, MIN_RING);
  return s;
}

void ls_delete(ls_stack *s)
{
  if (!s)
    return;
  free_chunks(s);
  cs_free(s->chunk);
  if (s->hslot)
    cs_free(s->hslot);
  free_ring(s);
  cs_free(s);
}

void ls_clear(ls_stack *s)
{
  uint64_t i;

  free_chunks(s);
  if (s->small)
    for (i = 0; i <= s->hslot_mask; i++)
      s->hslot[i].key = 0;
  for (i = 0; i < (s->ring_mask + 1) / 64; i++)
    s->valid[i] = 0;
  s->count = 0;
  s->now = s->oldest = 0;
}

/* ---- references --------------------------------------------------------- */

static int bucket_of(const ls_stack *s, uint64_t t)
{
  int j;

  for (j = 0; j < s->n_buckets - 1; j++)
    if (s->count < s->edge[j + 1] || t >= s->tail[j])
      break;
  return j;
}

/* A line in the stack at time t, in bucket k, goes to the front. */
static void move_to_front(ls_stack *s, uint32_t *stamp, uint64_t line,
                          uint64_t t, int k)
{
  int j;

  clear_valid(s, t);
  place(s, stamp, line);
  /* not the most recent line: a newer valid time follows t */
  if (t == s->oldest)
    s->oldest = next_valid(s, t);
  if (s->count >= s->edge[k + 1] && s->tail[k] == t)
    s->tail[k] = next_valid(s, t);
  for (j = 0; j < k; j++)
    s->tail[j] = next_valid(s, s->tail[j]);
}

/* A line not in the stack arrives at the front; the deepest line leaves
   if the stack is full. */
static void insert_line(ls_stack *s, uint64_t line)
{
  int j, last = s->n_buckets - 1;
  uint32_t old_count = s->count;
  uint64_t evicted = s->oldest;
  int full = old_count == s->capacity;

  if (full) {
    clear_valid(s, evicted);
    drop_stamp(s, s->ring[evicted & s->ring_mask]);
  } else
    s->count++;
  place(s, insert_stamp(s, line), line);
  if (old_count == 0 || s->count == 1)
    s->oldest = s->now - 1;
  else if (full)
    s->oldest = next_valid(s, evicted);
  for (j = 0; j < last && old_count >= s->edge[j + 1]; j++)
    s->tail[j] = next_valid(s, s->tail[j]);
  if (full) {
    s->tail[last] = s->oldest;
    return;
  }
  /* j: the bucket that holds the new deepest position, old_count */
  if (s->count == s->edge[j + 1])
    s->tail[j] = s->oldest;
}

void ls_prefetch(ls_stack *s, uint64_t line)
{
  if (s->small)
    __builtin_prefetch(&s->hslot[hslot_home(s, line + 1)]);
  else
    __builtin_prefetch(stamp_of(s, line));
}

int ls_ref(ls_stack *s, uint64_t line)
{
  uint32_t *stamp;
  uint64_t t;
  int k;

  if (s->count > 0 && s->mru_line == line)
    return 0;
  make_room(s);
  stamp = find_stamp(s, line);
  if (!stamp) {
    insert_line(s, line);
    return LS_ABSENT;
  }
  t = *stamp - 1;
  k = bucket_of(s, t);
  move_to_front(s, stamp, line, t, k);
  return k;
}
