/* callgrind-bd: the MPI rank of this process, as its launcher names it.
 *
 * Each rank of an MPI program runs under its own Valgrind; Open MPI's
 * mpirun sets OMPI_COMM_WORLD_RANK in every rank, Hydra (MPICH, Intel MPI)
 * PMI_RANK, Slurm's srun SLURM_PROCID. The first of these holding a
 * decimal number is the rank: written into every profile as
 * `desc: MPI rank: N (VAR)` (callgrind-bd_merge lists the merged ranks from
 * it), and printed at start with -v. Nothing when none is set.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

static const HChar *const rank_vars[] = {
   "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"
};

static const HChar *rank_var;    /* the variable that named the rank */
static HChar rank_text[24];      /* its value */

static Bool is_decimal(const HChar *s)
{
   Int n = 0;
   for (; *s; s++, n++)
      if (*s < '0' || *s > '9' || n >= (Int)sizeof rank_text - 1) return False;
   return n > 0;
}

void cb_mpi_rank_init(void)
{
   UInt i;
   for (i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
      const HChar *value = VG_(getenv)(rank_vars[i]);
      if (value && is_decimal(value)) {
         rank_var = rank_vars[i];
         VG_(strcpy)(rank_text, value);
         break;
      }
   }
   if (rank_var && VG_(clo_verbosity) > 1)
      VG_(umsg)("MPI rank %s (%s)\n", rank_text, rank_var);
}

void cb_mpi_rank_write_desc(cb_outfile *f)
{
   if (rank_var) cb_out_printf(f, "desc: MPI rank: %s (%s)\n", rank_text, rank_var);
}
