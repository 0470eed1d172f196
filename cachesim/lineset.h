/*
** lineset.h -- the set of cache lines touched so far ("first touch").
**
** The model: a set of 64-bit line numbers with one operation, "add this
** line and tell whether it was already there".  Lines are kept as bits:
** one bitmap of LSET_CHUNK_LINES lines per chunk of line numbers that has
** been touched, chunks found through an open-addressing hash table.  So
** memory follows the footprint (a 1 GiB footprint of 64-byte lines costs
** 2 MiB of bits) and a test is O(1): the last two chunks are remembered,
** as consecutive references mostly fall into the same chunk or alternate
** between two (a copy, two arrays, the stack and the heap).
**
** Pure C like cachesim.c: memory comes from cs_alloc/cs_free (cachesim.h).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef LINESET_H
#define LINESET_H

#include <stdint.h>

#define LSET_CHUNK_BITS 15                 /* lines per chunk: 32768 */
#define LSET_CHUNK_LINES (1u << LSET_CHUNK_BITS)

typedef struct {
   uint64_t  key;            /* chunk number + 1; 0 = empty slot */
   uint64_t *bits;
} lset_slot;

typedef struct {
   lset_slot *slot;
   uint32_t   mask;          /* slots - 1 */
   uint32_t   chunks;
   uint64_t   last_key[2];    /* [0] the most recent chunk; 0 = none */
   uint64_t  *last_bits[2];
} lineset;

lineset *lset_new(void);
void     lset_delete(lineset *);
void     lset_clear(lineset *);      /* forget every line */

/* Adds line; returns 1 if it was already in the set, 0 if new. */
int      lset_test_and_add(lineset *, uint64_t line);

#endif /* LINESET_H */
