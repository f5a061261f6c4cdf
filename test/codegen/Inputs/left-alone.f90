! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! fortran.test: loops grainchunk leaves to the runtime or alone.
subroutine alone(a, n)
  integer :: n, i
  real(8) :: a(n)
  !$omp parallel
  !$omp do schedule(dynamic, 2)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp do schedule(guided)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp do schedule(runtime)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp do schedule(auto)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp do schedule(static, 2) ordered
  do i = 1, n
    !$omp ordered
    a(i) = a(i) + 1
    !$omp end ordered
  end do
  !$omp single
  !$omp taskloop grainsize(4)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp end single
  !$omp end parallel
  !$omp simd
  do i = 1, n
    a(i) = a(i) * 2
  end do
end subroutine
