/*
** lrustack.c -- LRU stack of lines with distance buckets, kept as a
** timestamp ring (see lrustack.h for the model and the method).
**
** Invariants, with R the ring size and `now` the next time:
**  - the valid times are the `count` lines' last times, all in
**    [oldest, now), and now - oldest <= R, so no two share a ring slot;
**  - the hash table (linear probing, at most half full) holds exactly the
**    lines in the stack, each with its last time;
**  - for every full bucket j (count >= e[j+1]), tail[j] is the time of the
**    line at position e[j+1]-1.
** Positions grow towards older times, so a line at time t is in the first
** bucket j that is not full or whose tail[j] <= t.
**
** When the next time would land on the oldest line's slot, the ring is
** compacted (the valid times renumbered 0 .. count-1, updating the hash
** table) or, if more than a quarter of it is valid, doubled (times kept).
** Either way at least 3/4 of the ring is free afterwards, so the hash
** updates of a compaction cost at most 1/3 per reference.
*/
#include "lrustack.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */

#define MIN_RING 64
#define MIN_SLOTS 64

/* ---- hash table: line -> last time ------------------------------------ */

/* Neighbouring lines go to neighbouring slots (a sweep walks the table
   instead of missing the host's cache on every lookup); the higher bits
   are folded in so that power-of-two strides still spread. */
static uint32_t home_of(const ls_stack *s, uint64_t key)
{
  int b = s->slot_bits;
  return (uint32_t)(key ^ (key >> b) ^ (key >> 2 * b)) & s->slot_mask;
}

/* The line's slot, or the empty slot where it would go. */
static ls_slot *find_slot(const ls_stack *s, uint64_t line)
{
  uint64_t key = line + 1;
  uint32_t i = home_of(s, key);

  while (s->slot[i].key && s->slot[i].key != key)
    i = (i + 1) & s->slot_mask;
  return &s->slot[i];
}

static void alloc_slots(ls_stack *s, uint32_t n)
{
  s->slot_mask = n - 1;
  s->slot_bits = 0;
  while ((1u << s->slot_bits) < n)
    s->slot_bits++;
  s->slot = cs_alloc(sizeof(ls_slot) * n);
}

static void grow_slots(ls_stack *s)
{
  ls_slot *old = s->slot;
  uint32_t i, old_n = s->slot_mask + 1;

  alloc_slots(s, 2 * old_n);
  for (i = 0; i < old_n; i++)
    if (old[i].key)
      *find_slot(s, old[i].key - 1) = old[i];
  cs_free(old);
}

/* Linear probing deletion: later entries of the cluster whose home is not
   between the hole and themselves move back into the hole. */
static void remove_line(ls_stack *s, uint64_t line)
{
  uint32_t hole = (uint32_t)(find_slot(s, line) - s->slot), i = hole;

  for (;;) {
    uint32_t home;
    i = (i + 1) & s->slot_mask;
    if (!s->slot[i].key)
      break;
    home = home_of(s, s->slot[i].key);
    if (((i - home) & s->slot_mask) >= ((i - hole) & s->slot_mask)) {
      s->slot[hole] = s->slot[i];
      hole = i;
    }
  }
  s->slot[hole].key = 0;
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

static void set_valid(ls_stack *s, uint64_t t)
{
  uint64_t r = t & s->ring_mask;
  s->valid[r >> 6] |= 1ull << (r & 63);
}

static void clear_valid(ls_stack *s, uint64_t t)
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

/* Moves the valid entries to a ring of n slots, renumbered from 0 when
   `renumber` (their hash slots follow), else at the same times. */
static void rebuild_ring(ls_stack *s, uint64_t n, int renumber)
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
    if (!renumber)
      nt = t;
    else
      find_slot(s, line)->time = nt;
    s->ring[nt & s->ring_mask] = line;
    set_valid(s, nt);
    if (j >= 0 && s->tail[j] == t)
      s->tail[j--] = nt;
    nt++;
    t++;
  }
  if (renumber) {
    s->oldest = 0;
    s->now = nt;
  }
  cs_free(ring);
  cs_free(valid);
}

/* Makes the slot of time `now` free (see the top of this file). */
static void make_room(ls_stack *s)
{
  uint64_t size = s->ring_mask + 1;

  if (s->count == 0 || s->now - s->oldest < size)
    return;
  if ((uint64_t)s->count * 4 > size)
    rebuild_ring(s, size * 2, 0);
  else
    rebuild_ring(s, size, 1);
}

/* The line takes time `now` (its slot is free, see make_room). */
static void place(ls_stack *s, ls_slot *sl, uint64_t line)
{
  uint64_t t = s->now++;

  s->ring[t & s->ring_mask] = line;
  set_valid(s, t);
  sl->time = t;
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
  ls_stack *s = cs_alloc(sizeof(ls_stack));

  if (capacity == 0 || capacity >= 0x7fffffffu)
    cs_fail("lrustack: capacity out of range");
  s->capacity = capacity;
  init_edges(s, pow2_buckets);
  alloc_slots(s, MIN_SLOTS);
  alloc_ring(s, MIN_RING);
  return s;
}

void ls_delete(ls_stack *s)
{
  if (!s)
    return;
  cs_free(s->slot);
  free_ring(s);
  cs_free(s);
}

void ls_clear(ls_stack *s)
{
  uint64_t i;

  for (i = 0; i <= s->slot_mask; i++)
    s->slot[i].key = 0;
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
static void move_to_front(ls_stack *s, ls_slot *sl, uint64_t t, int k)
{
  int j;

  clear_valid(s, t);
  place(s, sl, sl->key - 1);
  /* not the most recent line: a newer valid time follows t */
  if (t == s->oldest)
    s->oldest = next_valid(s, t);
  if (s->count >= s->edge[k + 1] && s->tail[k] == t)
    s->tail[k] = next_valid(s, t);
  for (j = 0; j < k; j++)
    s->tail[j] = next_valid(s, s->tail[j]);
}

/* The deepest line leaves (the stack is full). */
static void evict_oldest(ls_stack *s)
{
  uint64_t t = s->oldest;

  clear_valid(s, t);
  remove_line(s, s->ring[t & s->ring_mask]);
}

/* A line not in the stack arrives at the front; the deepest line leaves
   if the stack is full. */
static void insert_line(ls_stack *s, uint64_t line)
{
  int j, last = s->n_buckets - 1;
  uint32_t old_count = s->count;
  uint64_t evicted = 0;
  int full = old_count == s->capacity;

  if (full) {
    evicted = s->oldest;
    evict_oldest(s);
  } else {
    s->count++;
    if (s->count * 2 > s->slot_mask + 1)
      grow_slots(s);
  }
  {
    ls_slot *sl = find_slot(s, line);
    sl->key = line + 1;
    place(s, sl, line);
  }
  if (old_count == 0 || (full && s->count == 1))
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

int ls_ref(ls_stack *s, uint64_t line)
{
  ls_slot *sl;

  if (s->count > 0 && s->mru_line == line)
    return 0;
  make_room(s);
  sl = find_slot(s, line);
  if (!sl->key) {
    insert_line(s, line);
    return LS_ABSENT;
  }
  {
    uint64_t t = sl->time;
    int k = bucket_of(s, t);
    move_to_front(s, sl, t, k);
    return k;
  }
}
