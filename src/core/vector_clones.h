/* AXB_VECTOR_CLONES: a hot loop compiled three times, for the x86-64 baseline (SSE2: two doubles
 * per instruction), AVX2 (four; eight 32-bit integers) and AVX-512F (eight; sixteen), the one
 * matching the CPU chosen when the program loads (GCC's target_clones). A cluster binary is built
 * once for many node types, so -march=native is not an option; FMA is not enabled, so every
 * version rounds the same way and results do not depend on the node (the loops are element-wise:
 * the width changes how many results one instruction makes, not their order of operations).
 * AVX-512 took a warm merged extraction from 0.42 to 0.40 s on one core of this AMD EPYC, results
 * bit-identical. Elsewhere (other compilers, other CPUs, sanitizer builds) it is empty. */
#ifndef AXB_CORE_VECTOR_CLONES_H
#define AXB_CORE_VECTOR_CLONES_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) &&               \
    !defined(__SANITIZE_THREAD__) && defined(__linux__)
#define AXB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AXB_VECTOR_CLONES
#endif

#endif
