/* SPDX-License-Identifier: GPL-2.0 */
/*
 * assert_num.h - a double checked by value. cmocka's assert_float_equal()
 * compares in single precision (a tolerance under about 1e-7 relative is not
 * what it checks) and passes when either side is NaN; this one compares
 * doubles, and a NaN equals only a NaN.
 */
#ifndef KSCEN_ASSERT_NUM_H
#define KSCEN_ASSERT_NUM_H

#include <math.h>

#define assert_num_equal(a, b, eps) do {				\
	double a_ = (a), b_ = (b), e_ = (eps);				\
	if (isnan(a_) || isnan(b_) ? !(isnan(a_) && isnan(b_)) :	\
	    !(fabs(a_ - b_) <= e_))					\
		fail_msg("%s is %.17g, not %.17g (within %g)", #a,	\
			 a_, b_, e_);					\
} while (0)

#endif
