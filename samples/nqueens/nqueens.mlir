// nqueens.mlir: count the solutions of the N-Queens puzzle, one task per
// queen placement.
//
//   python samples/nqueens/nqueens.py 8                      run it: 92 solutions
//   python samples/nqueens/nqueens.py 10 --work_queue_type=mstd:2
//
// nqueens.count is an async kernel (samples/nqueens/nqueens.py): it spawns
// one work-queue task per queen of the first row through the runtime's task
// API, each task spawns one task per safe square of the next row, and every
// task returns the join (when_all) of its children's counts.  The kernel's
// result is that AsyncValue, so @nqueens returns before the search is done
// and the caller awaits the count.
func.func @nqueens(%n: i32) -> i32 {
  %count = "nqueens.count"(%n) : (i32) -> i32
  tfrt.return %count : i32
}
