not_a_kernel = [x for x in
