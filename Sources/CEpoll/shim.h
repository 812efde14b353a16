#ifndef ATTUNE_CEPOLL_SHIM_H
#define ATTUNE_CEPOLL_SHIM_H
// epoll, eventfd and timerfd are glibc's, but Swift's Glibc module leaves their headers
// out. This module only names the headers: it links nothing beyond libc.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
