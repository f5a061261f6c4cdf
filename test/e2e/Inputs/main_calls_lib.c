/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The program of build-modes.test's shared-library case: loops.c is built
 * into a -fPIC shared library with its main renamed. */
int loops_main(void);
int main(void) { return loops_main(); }
