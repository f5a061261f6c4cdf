! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! fortran-nog.test: three worksharing loops of a main program in one
! parallel region (a collapse(2), an integer(8) loop with lastprivate, a
! nowait loop), each its own site with or without line tables.
program three
  implicit none
  integer, parameter :: n = 64
  real(8) :: a(n, n), b(n), c(n)
  integer :: i, j
  integer(8) :: k, last
  a = 0
  b = 0
  c = 0
  !$omp parallel num_threads(2)
  !$omp do collapse(2) schedule(static, 8)
  do j = 1, n
    do i = 1, n
      a(i, j) = i + j
    end do
  end do
  !$omp end do
  !$omp do schedule(static, 4) lastprivate(last)
  do k = 1_8, int(n, 8)
    b(k) = k
    last = k
  end do
  !$omp end do
  !$omp do schedule(static, 2)
  do i = 1, n
    c(i) = 2 * i
  end do
  !$omp end do nowait
  !$omp end parallel
  print *, sum(a), sum(b), sum(c), last
end program three
