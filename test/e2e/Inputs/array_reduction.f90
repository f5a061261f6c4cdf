! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! fortran-location.test: flang-22 leaves the runtime calls of an array
! reduction's loop without a source location at -O1 and above (its ident
! says ";unknown;unknown;0;0;;"); the loop beside it keeps its location.
program arred
  implicit none
  integer, parameter :: n = 30
  integer(8) :: r(3), s
  integer :: i
  r = 0
  s = 0
  write (*, '(a)') 'REGION 2'
  write (*, '(a)') 'LOOP 30 4'
  !$omp parallel do schedule(static, 4) reduction(+:r) num_threads(2)
  do i = 1, n
    r(mod(i, 3) + 1) = r(mod(i, 3) + 1) + i
  end do
  write (*, '(a)') 'REGION 2'
  write (*, '(a)') 'LOOP 30 5'
  !$omp parallel do schedule(static, 5) reduction(+:s) num_threads(2)
  do i = 1, n
    s = s + i
  end do
  write (*, '(a,3(1x,i0),1x,i0)') 'sums', r, s
end program
