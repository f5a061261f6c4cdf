! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! mixed-language.test: a Fortran main program with its own static loops,
! calling a C library's (mixed_lib.c), at team sizes 1 to 3; a region of
! its own that calls the C library's orphaned loop. Prints the
! REGION/LOOP lines for check_chunks.py and what the loops computed.
program mixed
  use iso_c_binding
  implicit none
  interface
    subroutine c_loops(n, chunk, threads, out) bind(C)
      import :: c_int, c_long_long
      integer(c_int), value :: n, chunk, threads
      integer(c_long_long) :: out(*)
    end subroutine
    subroutine c_orphan(n, chunk, out) bind(C)
      import :: c_int, c_long_long
      integer(c_int), value :: n, chunk
      integer(c_long_long) :: out(*)
    end subroutine
  end interface
  integer(c_long_long) :: acc(100)
  integer :: t, c, i, n
  do t = 1, 3
    do c = 1, 5, 2
      n = 40 + c
      acc = 0
      write (*, '(a,i0)') 'REGION ', t
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c
      !$omp parallel do schedule(static, c) num_threads(t)
      do i = 1, n
        acc(i) = acc(i) + i
      end do
      write (*, '(a,i0)') 'REGION ', t
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c + 1
      call c_loops(n, c + 1, t, acc)
      write (*, '(a,i0)') 'REGION ', t
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, 2
      !$omp parallel num_threads(t)
      !$omp do schedule(static, c)
      do i = 1, n
        acc(i) = acc(i) * 2
      end do
      call c_orphan(n, 2, acc)
      !$omp end parallel
      write (*, '(a,i0)') 'sum ', sum(acc * [(i, i = 1, 100)])
    end do
  end do
end program
