void work(int);
void f(int n) {
#pragma omp parallel for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
