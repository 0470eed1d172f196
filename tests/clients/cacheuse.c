/* Cache-use test client: exactly the README's example (the motivating
   case of the back-dating paper), so the tests check what users run. */
#include "../../examples/cacheuse-example.c"
