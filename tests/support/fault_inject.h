/* Fault injection for collective phases (docs/testing.md, test_fault_inject). A test executable
 * that includes fault_inject.c and is linked with exported symbols (ENABLE_EXPORTS) interposes
 * the MPI, HDF5 and netCDF calls libaxibulk makes: each one runs for real, and when armed, the
 * n-th of them on this rank then reports failure. Running the call first keeps every collective
 * complete on every rank, so the other ranks see exactly what a real one-rank failure leaves
 * them (a write that failed for lack of space, say): a rank that knows of an error, and ranks
 * that do not. Calls from other libraries (HDF5 calling MPI, netCDF calling HDF5) and the
 * agreement's own reductions (an MPI failure there means MPI itself is broken) are not counted.
 * The state is the test program's, never the library's. */
#ifndef AXB_TESTS_SUPPORT_FAULT_INJECT_H
#define AXB_TESTS_SUPPORT_FAULT_INJECT_H

/* Counts from zero again and fails the @p n-th counted call on this rank (0: none). */
void fault_arm(long n);

/* Counted calls since the last fault_arm. */
long fault_calls(void);

/* The name of the call that was made to fail since the last fault_arm, or NULL. */
const char *fault_fired(void);

#endif
