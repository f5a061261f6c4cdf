! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! Issue 34's example of debug info under the plugin, in Fortran: a parallel
! region with a `do` (schedule(static, 4)), a `single` and a second `do`
! (schedule(static)). check_frames.py compares the frames of its runtime
! calls between a stock and a grainchunk build.
program regions
  implicit none
  integer :: a(1000), i
  !$omp parallel
  !$omp do schedule(static, 4)
  do i = 1, 1000
    a(i) = i
  end do
  !$omp end do
  !$omp single
  print *, 'single'
  !$omp end single
  !$omp do
  do i = 1, 1000
    a(i) = a(i) + 1
  end do
  !$omp end do
  !$omp end parallel
  print *, a(1000)
end program regions
