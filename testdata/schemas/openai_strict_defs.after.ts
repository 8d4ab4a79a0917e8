{
steps: {
    explanation: string,
    output: string,
    }[],
final_answer: string,
linked_list: any,
}
