/*
** branchsim.h -- the branch predictor of Callgrind/Cachegrind (3.19),
** for the Bc/Bcm and Bi/Bim events.  Pure C, like cachesim.
**
**  - Conditional branches: 16384 two-bit saturating counters, all starting
**    at 0 (strongly not-taken).  The counter for a branch is chosen by 14
**    bits: the last 7 outcomes of ANY conditional branch (global history,
**    newest in bit 0) above the low 7 bits of the branch's address.  A
**    counter >= 2 predicts taken.  Every branch shifts its outcome into
**    the history, then moves its counter towards the outcome.
**  - Indirect jumps and calls: a 512-entry table of last targets, indexed
**    by the low 9 bits of the instruction address; a mispredict is a
**    target different from the one remembered, which is then replaced.
**    Entries start at 0.
** On amd64 no low address bits are dropped before indexing (instructions
** can start at any byte).  The functions return 1 for a mispredict.
** The tool updates the predictor even while collection is off, as the
** reference does.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef BRANCHSIM_H
#define BRANCHSIM_H

#include <stdint.h>

#define BS_HIST_BITS 7
#define BS_ADDR_BITS 7
#define BS_COUNTERS  (1 << (BS_HIST_BITS + BS_ADDR_BITS))
#define BS_BTAC_BITS 9
#define BS_BTAC      (1 << BS_BTAC_BITS)

typedef struct bs_sim {
   uint64_t history;              /* outcomes, newest in bit 0 */
   uint8_t  counters[BS_COUNTERS];
   uint64_t targets[BS_BTAC];
} bs_sim;

/* Allocated with cs_alloc (zeroed): the reference's initial state. */
bs_sim *bs_new(void);
void    bs_delete(bs_sim *);
void    bs_clear(bs_sim *);     /* back to the initial state */

/* Conditional branch at instr_addr; taken is 0 or 1. */
static inline unsigned bs_cond(bs_sim *b, uint64_t instr_addr, int taken)
{
   uint32_t hist = (uint32_t)b->history & ((1u << BS_HIST_BITS) - 1);
   uint32_t addr = (uint32_t)instr_addr & ((1u << BS_ADDR_BITS) - 1);
   uint8_t *ctr = &b->counters[(hist << BS_ADDR_BITS) | addr];
   int predicted = *ctr >= 2;

   taken = taken != 0;
   b->history = (b->history << 1) | (uint64_t)taken;
   if (taken) {
      if (*ctr < 3)
         (*ctr)++;
   } else if (*ctr > 0) {
      (*ctr)--;
   }
   return predicted != taken;
}

/* Indirect jump or call at instr_addr going to target. */
static inline unsigned bs_indirect(bs_sim *b, uint64_t instr_addr,
                                   uint64_t target)
{
   uint64_t *slot = &b->targets[instr_addr & (BS_BTAC - 1)];
   unsigned miss = *slot != target;

   *slot = target;
   return miss;
}

#endif /* BRANCHSIM_H */
