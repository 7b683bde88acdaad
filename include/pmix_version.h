/*
 * pmix_version.h - version of the PMIx standard/ABI this library provides.
 *
 * Part of the pmix-rs project: an independent, ABI-compatible
 * implementation of the OpenPMIx 4.2 client/server/tool interfaces.
 */
#ifndef PMIx_VERSION_H
#define PMIx_VERSION_H

/* Release triple (long constants, as the 4.2 ABI declares them). */
#define PMIX_VERSION_MAJOR   4L
#define PMIX_VERSION_MINOR   2L
#define PMIX_VERSION_RELEASE 2L

/* 0x00MMmmrr encoding of the triple above. */
#define PMIX_NUMERIC_VERSION 0x00040202

#endif /* PMIx_VERSION_H */
