! fortran.test: schedule(static,N) loops in two internal procedures, the
! main program and an external procedure (linker name scale_all_), each in
! its own outlined function.
program twoloops
  implicit none
  integer, parameter :: n = 40
  real(8) :: a(n), b(n)
  integer :: i
  a = 0
  b = 0
  call first()
  call second()
  call scale_all(b, n)
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

subroutine scale_all(x, m)
  implicit none
  integer :: m, l
  real(8) :: x(m)
  !$omp parallel do schedule(static, 6) num_threads(2)
  do l = 1, m
    x(l) = x(l) * 3
  end do
  !$omp end parallel do
end subroutine scale_all
