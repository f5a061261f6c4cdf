! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! fortran-location.test: flang-22 leaves the runtime calls of an array
! reduction's loop without a source location at -O1 and above (its ident
! says ";unknown;unknown;0;0;;"), and gives those of a loop with a
! user-defined reduction the location of its procedure's first line (line
! 29 for the loop at line 35); the second loop keeps its own.
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
  call udr(n)
end program
subroutine udr(n)
  integer :: n, i, m
  !$omp declare reduction(mx: integer: omp_out = max(omp_out, omp_in)) initializer(omp_priv = -huge(1))
  m = -huge(1)
  write (*, '(a)') 'REGION 2'
  write (*, '(a,i0,a)') 'LOOP ', n, ' 3'
  !$omp parallel do schedule(static, 3) reduction(mx:m) num_threads(2)
  do i = 1, n
    m = max(m, mod(i * 7, 11))
  end do
  write (*, '(a,i0)') 'max ', m
end subroutine
