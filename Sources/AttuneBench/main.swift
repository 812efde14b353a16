import CAllocCounter
print(attune_alloc_count())
