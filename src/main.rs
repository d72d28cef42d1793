fn main() {
    std::process::exit(toolsift::run() as i32);
}
