/* The manual's worked example itself (naive or blocked transpose, chosen
   by the argument), so the tests check what users run. */
#include "../../examples/transpose.c"
