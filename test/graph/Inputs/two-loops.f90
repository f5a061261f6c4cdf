! fortran.test: schedule(static,N) loops in two internal procedures and
! the main program, each in its own outlined function.
program twoloops
  implicit none
  integer, parameter :: n = 40
  real(8) :: a(n), b(n)
  integer :: i
  a = 0
  b = 0
  call first()
  call second()
  !$omp parallel do schedule(static, 5) num_threads(2)
  do i = 1, n
    b(i) = b(i) + 1
  end do
  !$omp end parallel do
  print *, sum(a), sum(b)
contains
  subroutine first()
    integer :: j
    !$omp parallel num_threads(2)
    !$omp do schedule(static, 4)
    do j = 1, n
      a(j) = a(j) + j
    end do
    !$omp end do
    !$omp end parallel
  end subroutine first

  subroutine second()
    integer :: k
    !$omp parallel num_threads(2)
    a(1) = a(1)
    !$omp do schedule(static, 3)
    do k = 1, n
      a(k) = a(k) * 2
    end do
    !$omp end do
    !$omp end parallel
  end subroutine second
end program twoloops
