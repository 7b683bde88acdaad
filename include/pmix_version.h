/*
 * pmix_version.h - version of the OpenPMIx API this library provides.
 *
 * Part of the pmix-rs project: an independent, ABI-compatible
 * implementation of the OpenPMIx interfaces. The library implements the
 * OpenPMIx 5.0 API (every function of 5.0.11) on the 4.2 ABI, so these
 * say 5.0.11: programs that test them at build time take their 5.0 paths.
 */
#ifndef PMIx_VERSION_H
#define PMIx_VERSION_H

/* Release triple (long constants, as OpenPMIx declares them). */
#define PMIX_VERSION_MAJOR   5L
#define PMIX_VERSION_MINOR   0L
#define PMIX_VERSION_RELEASE 11L

/* The triple as 0xMMMMmmrr, in hex digits: 5.0.11 is 0x0005000b. */
#define PMIX_NUMERIC_VERSION 0x0005000b

/* Capability flags (OpenPMIx 5.0): behaviours a consumer may test for
 * instead of release numbers. Only the base set is defined. */
#define PMIX_CAP_BASE        1
#define PMIX_CAPABILITIES    (PMIX_CAP_BASE)

#endif /* PMIx_VERSION_H */
